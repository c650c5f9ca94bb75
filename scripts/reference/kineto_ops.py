#!/usr/bin/env python3
"""Independent PyTorch op numbers for a Kineto trace, to check
`tfprof-analyze op-stats`, `kernel-stats`, `overview` and `placement`
against (tests/analyze/kineto_ops_test.cc, kineto_precision_test.cc).

Written from the rules in docs/op-stats.md and docs/formats/pytorch-kineto.md,
not from our code:
  * host ops are the `cpu_op` events (2021 builds: `Operator`) but the
    ProfilerStep#N step markers; type and name are the event name;
  * on each thread (pid, tid) ops nest by containment: events taken by start,
    longer first, an op is inside the innermost open op that ends after it
    starts; self time = time minus the time of the ops directly inside;
  * a device event (kernel, memcpy, memset) belongs to, in this order:
    1. the innermost op open on the thread of the runtime call with the same
       `correlation` when the call starts (same containment rule);
    2. else the innermost `user_annotation` (not ProfilerStep#N) open then;
    3. else the innermost `gpu_user_annotation` (not ProfilerStep#N) of its
       GPU (pid) open when the device event starts;
    4. else its own name;
  * kernel stats rows: every `kernel` event, whatever its duration; key:
    kernel name, launch parameters (ROCm: from the launch when the kernel
    lacks them; none, 0s, for a kernel replayed from a graph), op and
    precision;
  * precision of a kernel: the narrowest type its name or (rule 1) its op's
    `Input type` names; NCCL kernels are collectives, not compute;
  * Tensor Cores: kernel and op name rules; "eligible unused" = kernel time of
    eligible ops in kernels that do not use them;
  * placement candidates: host ops that never had a runtime call inside them
    (or inside an op within) and are not bookkeeping (allocation, views,
    autograd engine and backward nodes, record_function scopes);
  * also counted: how often the device event's `External id` names that op's
    `External id` (the other link Kineto writes).
Times are integer picoseconds from exact decimals, as the reader keeps them
(a float loses ~0.3 us at epoch-microsecond timestamps).
Usage: kineto_ops.py TRACE.json[.gz] [TOP]
"""
import collections
import json
import re
import sys

from kineto_trace import load, ps

DEVICE = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}
KERNEL = {"kernel", "Kernel"}
OPS = {"cpu_op", "Operator"}

# --- precision (docs/formats/pytorch-kineto.md#precision) --------------------
P8, P16, P32, UNKNOWN = "8bit", "16bit", "32bit", "unknown"
SUB8 = ("e4m3", "e5m2", "e2m1", "e3m2", "e2m3", "fp8", "fp4", "i8816", "i16832")
SUB16 = ("f16", "float16", "h884", "h1688", "h16816", "s16816", "hgemm", "hcudnn")
WORD16 = {"half", "half2"}
SUB32 = ("f32", "fp32", "f64", "fp64", "sgemm", "dgemm", "cgemm", "zgemm", "scudnn")
WORD32 = {"float", "float2", "float4", "float32", "float64", "double", "double2"}


def tensile(s):
    """AMD Tensile GEMM names: Cijk_<A>_<B>_<types>_...; the types token's start."""
    if not s.startswith("cijk_"):
        return UNKNOWN
    parts = s.split("_")
    if len(parts) < 4 or not parts[3]:
        return UNKNOWN
    t = parts[3]
    if t[:2] in ("f8", "b8", "i8"):
        return P8
    if t[0] in "hb":
        return P16
    if t[0] in "sdcz":
        return P32
    return UNKNOWN


def nvjet(s):
    """cuBLAS nvjet GEMM names: nvjet_[sm<N>_]<types>_...; one letter per type
    (q/r FP8, h/t FP16/BF16, s/d FP32/FP64); the narrowest letter."""
    m = re.match(r"nvjet_(?:sm\d[a-z0-9]*_)?([a-z]{3,6})(?:_|$)", s)
    if not m or not set(m.group(1)) <= set("qrhtsd"):
        return UNKNOWN
    letters = set(m.group(1))
    return P8 if letters & set("qr") else P16 if letters & set("ht") else P32


def precision(text):
    s = text.lower()
    words = set(re.findall(r"[a-z0-9]+", s))
    t = narrower(tensile(s), nvjet(s))
    if any(p in s for p in SUB8) or t == P8:
        return P8
    if any(p in s for p in SUB16) or words & WORD16 or t == P16:
        return P16
    if any(p in s for p in SUB32) or words & WORD32 or t == P32:
        return P32
    return UNKNOWN


def narrower(a, b):
    order = [P8, P16, P32]
    known = [p for p in (a, b) if p != UNKNOWN]
    return min(known, key=order.index) if known else UNKNOWN


# --- Tensor Cores ----------------------------------------------------------
TC_SUB = ("hmma", "gmma", "imma", "xmma", "_mma", "mma_", "_tensorop", "classtensorop", "16816", "s1688", "c1688",
          "h1688", "h884", "s884", "i8816", "i16832", "nvjet")
TC_ATTENTION = ("flash_fwd", "flash_bwd", "flash::", "fmha", "attn_fwd", "attn_bwd")
CUDA_CORES = ("simt", "ffma", "sgemm")
TC_ARCH = ("sm80", "sm86", "sm89", "sm90", "sm100")
ELIGIBLE = {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::addbmm", "aten::matmul", "aten::linear",
            "aten::_addmm_activation", "aten::_scaled_mm", "aten::_scaled_grouped_mm", "aten::_grouped_mm",
            "aten::einsum", "aten::tensordot", "aten::lstm", "aten::gru", "aten::rnn_tanh", "aten::rnn_relu"}


def uses_tc(name):
    s = name.lower()
    if any(p in s for p in CUDA_CORES):
        return False
    if any(p in s for p in TC_SUB):
        return True
    ampere = any(a in s for a in TC_ARCH)
    if any(p in s for p in TC_ATTENTION) and (ampere or precision(s) != P32):
        return True
    if "cutlass" in s and ampere:
        return True
    g = s.replace("fbgemm", "fb")
    if precision(s) == P8 and ("gemm" in g or "bmm" in g):
        return True
    if s.startswith("cijk_") and re.search(r"_mi[0-9]", s):
        return True
    return any(p in s for p in ("mfma", "_xdl_", "xdlops", "_gtcx"))


def eligible(op):
    if op in ELIGIBLE:
        return True
    if not op.startswith("aten::"):
        return False
    return ("conv" in op and "convert" not in op) or "attention" in op or "cudnn_rnn" in op


# --- placement bookkeeping ---------------------------------------------------
BOOKKEEPING = {
    "aten::empty", "aten::empty_strided", "aten::empty_like", "aten::new_empty", "aten::new_empty_strided",
    "aten::resize_", "aten::set_", "aten::view", "aten::view_as", "aten::_reshape_alias", "aten::reshape",
    "aten::_unsafe_view", "aten::as_strided", "aten::as_strided_", "aten::alias", "aten::t", "aten::transpose",
    "aten::transpose_", "aten::permute", "aten::expand", "aten::expand_as", "aten::unsqueeze", "aten::unsqueeze_",
    "aten::squeeze", "aten::squeeze_", "aten::slice", "aten::select", "aten::narrow", "aten::split",
    "aten::split_with_sizes", "aten::chunk", "aten::unbind", "aten::flatten", "aten::unflatten", "aten::detach",
    "aten::detach_", "aten::lift_fresh", "aten::numpy_T", "aten::contiguous", "aten::record_stream",
    "aten::is_nonzero", "aten::item", "aten::_local_scalar_dense", "aten::size", "aten::stride", "aten::movedim",
    "aten::moveaxis", "aten::resolve_neg", "aten::resolve_conj", "aten::result_type", "aten::broadcast_tensors",
    "aten::view_as_real", "aten::view_as_complex"}


def bookkeeping(op):
    return (op in BOOKKEEPING or op.startswith("autograd::engine::") or op.startswith("torch::autograd::")
            or re.search(r"Backward[0-9]*$", op) is not None or "#" in op or " " in op or "::" not in op)


def ext_id(args):
    return args.get("External id", args.get("external id"))


def is_step(name):
    return str(name).startswith("ProfilerStep#")


def main(path, top):
    ev = [e for e in load(path) if e.get("ph") == "X" and "dur" in e]
    threads = collections.defaultdict(list)
    for e in ev:
        if e.get("cat") in DEVICE:
            continue
        is_op = e.get("cat") in OPS and not is_step(e["name"])
        is_ann = e.get("cat") == "user_annotation" and not is_step(e["name"])
        is_launch = not is_op and not is_ann and "correlation" in e.get("args", {})
        if is_op or is_ann or is_launch:
            b = ps(e["ts"])
            kind = "op" if is_op else "ann" if is_ann else "launch"
            threads[(str(e["pid"]), str(e["tid"]))].append((b, b + ps(e["dur"]), kind, e))
    stats = {}  # name -> [occurrences, total_ps, self_ps, launching_occurrences]
    link_of_corr = {}  # correlation -> (name, External id, Input type or None, source)
    launch_dims = {}  # correlation -> (grid, block) on the launch (ROCm)
    for items in threads.values():
        items.sort(key=lambda x: (x[0], -(x[1] - x[0])))
        # Ops and annotations nest separately (an annotation may straddle an
        # op's end): one stack each.
        stack = []  # ops: [begin, end, name, children_ps, ext, input_types, launched]
        anns = []  # annotations: [begin, end, name]

        def close(o):
            s = stats.setdefault(o[2], [0, 0, 0, 0])
            s[0] += 1
            s[1] += o[1] - o[0]
            s[2] += max(0, o[1] - o[0] - o[3])
            s[3] += o[6]
            if o[6] and stack:
                stack[-1][6] = True  # The parent launched too.

        for b, end, kind, e in items:
            while stack and stack[-1][1] <= b:
                close(stack.pop())
            while anns and anns[-1][1] <= b:
                anns.pop()
            if kind == "launch":
                a = e["args"]
                if "grid" in a and "block" in a:
                    launch_dims[a["correlation"]] = (a["grid"], a["block"])
                if stack:
                    link_of_corr[a["correlation"]] = (stack[-1][2], stack[-1][4], stack[-1][5], "op")
                    stack[-1][6] = True
                elif anns:
                    link_of_corr[a["correlation"]] = (anns[-1][2], None, None, "annotation")
                continue
            if kind == "ann":
                anns.append([b, end, e["name"]])
                continue
            if stack:
                stack[-1][3] += end - b
            it = e.get("args", {}).get("Input type")
            stack.append([b, end, e["name"], 0, ext_id(e.get("args", {})), json.dumps(it) if it is not None else None,
                          False])
        while stack:
            close(stack.pop())
    rows = sorted(stats.items(), key=lambda kv: (-kv[1][2], kv[0]))
    print(f"host_ops={len(rows)} executions={sum(s[0] for _, s in rows)} self_ps={sum(s[2] for _, s in rows)}")
    for name, (n, t, s, _) in rows[:top]:
        print(f"host\t{name}\toccurrences={n}\ttotal_ps={t}\tself_ps={s}")
    cands = [(name, s) for name, s in rows if s[3] == 0 and not bookkeeping(name) and s[2] > 0]
    print(f"placement_candidates={len(cands)}")
    for name, (n, t, s, _) in cands[:top]:
        print(f"candidate\t{name}\toccurrences={n}\tself_ps={s}")

    # GPU annotations per device (pid), by start, longer first.
    gpu_ann = collections.defaultdict(list)
    for e in ev:
        if e.get("cat") == "gpu_user_annotation" and e["name"] and not is_step(e["name"]):
            b = ps(e["ts"])
            gpu_ann[str(e["pid"])].append((b, b + ps(e["dur"]), e["name"]))
    for v in gpu_ann.values():
        v.sort(key=lambda x: (x[0], -(x[1] - x[0])))

    def gpu_annotation(pid, start):
        best = None  # The latest-starting annotation open at `start`.
        for b, end, name in gpu_ann.get(pid, ()):
            if b > start:
                break
            if end > start:
                best = name
        return best

    dev_ops = collections.defaultdict(lambda: [0, 0])  # row -> [activities, ps]
    kernels = collections.defaultdict(lambda: [0, 0])  # row key -> [launches, ns]
    sources = collections.Counter()
    same_ext = 0
    dev = [e for e in ev if e.get("cat") in DEVICE]
    device_ps = 0
    for e in dev:
        a = e.get("args", {})
        link = link_of_corr.get(a.get("correlation"))
        if link is not None:
            row, ext, types, source = link
            same_ext += source == "op" and ext_id(a) is not None and ext_id(a) == ext
        else:
            types = None
            row = gpu_annotation(str(e["pid"]), ps(e["ts"]))
            source = "gpu_annotation" if row is not None else "own_name"
            row = row if row is not None else e["name"]
        sources[source] += 1
        d = dev_ops[row]
        d[0] += 1
        d[1] += ps(e["dur"])
        device_ps += ps(e["dur"])
        grid, block = a.get("grid"), a.get("block")
        if grid is None and a.get("correlation") in launch_dims:
            grid, block = launch_dims[a["correlation"]]
        if e.get("cat") in KERNEL:
            # A kernel replayed from a graph has no launch dimensions: 0s.
            # One of 0 us (whole-microsecond traces) still ran: counted.
            if grid is None or block is None:
                grid, block = [0, 0, 0], [0, 0, 0]
            prec = narrower(precision(e["name"]), precision(types) if types else UNKNOWN)
            # Kernel stats' row key: kernel, launch parameters, op, precision.
            k = kernels[(e["name"], json.dumps(grid), json.dumps(block), a.get("registers per thread", 0),
                         a.get("shared memory", 0), row, prec)]
            k[0] += 1
            k[1] += ps(e["dur"]) // 1000
    print(f"device_events={len(dev)} with_op={sources['op']} by_annotation={sources['annotation']} "
          f"by_gpu_annotation={sources['gpu_annotation']} by_own_name={sources['own_name']} "
          f"external_id_agrees={same_ext}")
    print(f"device_rows={len(dev_ops)} device_row_ps={sum(d[1] for d in dev_ops.values())} device_event_ps={device_ps}")
    for name, (n, t) in sorted(dev_ops.items(), key=lambda kv: (-kv[1][1], kv[0]))[:top]:
        print(f"device\t{name[:80]}\tactivities={n}\tps={t}")
    print(f"kernel_rows={len(kernels)}")
    for (k, grid, block, regs, shmem, op, prec), (n, t) in sorted(kernels.items(), key=lambda kv: (-kv[1][1], kv[0]))[:top]:
        print(f"kernel\t{k[:60]}\tgrid={grid} block={block} regs={regs}\top={op[:60]}\tprecision={prec}\tlaunches={n}\t"
              f"total_ns={t}")

    # Precision of device compute (NCCL kernels are collectives) and Tensor Cores.
    by_prec = collections.Counter()
    total = tc = elig = unused = 0
    unused_by_op = collections.Counter()
    for (k, _, _, _, _, op, prec), (n, t) in kernels.items():
        if not k.lower().startswith("nccl"):
            by_prec[prec] += t
        total += t
        u = uses_tc(k)
        el = eligible(op) or u
        tc += t if u else 0
        elig += t if el else 0
        if el and not u:
            unused += t
            unused_by_op[op] += t
    compute = sum(by_prec.values())

    def pct(x, whole):
        return 100.0 * x / whole if whole else 0.0

    print(f"precision_ns 8bit={by_prec[P8]} 16bit={by_prec[P16]} 32bit={by_prec[P32]} unknown={by_prec[UNKNOWN]} "
          f"compute={compute}")
    print(f"precision_percent 8bit={pct(by_prec[P8], compute):.4f} 16bit={pct(by_prec[P16], compute):.4f} "
          f"32bit={pct(by_prec[P32], compute):.4f} unknown={pct(by_prec[UNKNOWN], compute):.4f}")
    print(f"tensor_core_ns total={total} tc={tc} eligible={elig} eligible_unused={unused} "
          f"unused_percent={pct(unused, total):.4f}")
    for op, t in unused_by_op.most_common(top):
        print(f"tc_unused\t{op[:80]}\tns={t}\tpercent={pct(t, total):.4f}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 5)
