// std::allocator, except that elements a container makes without a value
// (vector::resize(n)) are default-initialised, not value-initialised: for
// the model's plain records that means left as the allocation gave them,
// instead of zeroed. A reader that sizes a line's events before its
// decoding threads fill them then does not zero (and fault in) the whole
// array on one thread first: each thread touches only the pages it writes.
#pragma once

#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace tfprof {

template <class T>
class DefaultInitAllocator : public std::allocator<T> {
 public:
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  using std::allocator<T>::allocator;
  DefaultInitAllocator() noexcept = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}

  // No arguments: default-initialise.
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    std::allocator_traits<std::allocator<T>>::construct(static_cast<std::allocator<T>&>(*this), p,
                                                        std::forward<Args>(args)...);
  }
};

}  // namespace tfprof
