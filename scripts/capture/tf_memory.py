#!/usr/bin/env python3
"""TensorFlow CPU run with a non-empty host memory profile.

TensorFlow's default CPU allocator records no ``MemoryAllocation`` /
``MemoryDeallocation`` TraceMe events, even with ``host_tracer_level=3``.
Setting ``TF_CPU_ALLOCATOR_USE_BFC=true`` (read by TF's ProcessState when the
CPU allocator is first created, so it must be set before TensorFlow starts)
makes TF use a BFC allocator for host memory; that allocator emits the
events (allocator name ``bfc_cpu_allocator_for_gpu``) and xprof's
memory_profile tool then has data.

The workload is a small custom training loop (``tf.function`` step on a
dense 784-256-10 model, batch 128) with ``Trace('train', step_num=, _r=1)``
step markers, profiled with ``ProfilerOptions(host_tracer_level=3)``.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import _common  # pylint: disable=wrong-import-position

_common.quiet_tf_logging()
# Must be set before TensorFlow creates its CPU allocator.
os.environ["TF_CPU_ALLOCATOR_USE_BFC"] = "true"

import numpy as np  # pylint: disable=wrong-import-position
import tensorflow as tf  # pylint: disable=wrong-import-position


def main():
    args = _common.parse_args(__doc__, "tf_memory", steps=4)

    tf.random.set_seed(0)
    rng = np.random.default_rng(0)
    images = tf.constant(rng.random((512, 784), dtype=np.float32))
    labels = tf.constant(rng.integers(0, 10, 512).astype(np.int64))

    w1 = tf.Variable(tf.random.normal([784, 256], stddev=0.05), name="w1")
    w2 = tf.Variable(tf.random.normal([256, 10], stddev=0.05), name="w2")

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(x, w1))
            logits = tf.matmul(h, w2)
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        g1, g2 = tape.gradient(loss, [w1, w2])
        w1.assign_sub(0.1 * g1)
        w2.assign_sub(0.1 * g2)
        return loss

    train_step(images[:128], labels[:128])  # warm-up / tracing

    logdir = _common.fresh_logdir(args.name)
    options = tf.profiler.experimental.ProfilerOptions(
        host_tracer_level=3, python_tracer_level=0, device_tracer_level=1)
    tf.profiler.experimental.start(logdir, options=options)
    for step in range(args.steps):
        with tf.profiler.experimental.Trace("train", step_num=step, _r=1):
            lo = (step * 128) % 512
            # Eager slicing allocates fresh host tensors every step.
            x = tf.identity(images[lo:lo + 128])
            y = tf.identity(labels[lo:lo + 128])
            loss = train_step(x, y)
    _common.stop_tf_profiler(tf, logdir, "final loss", loss)


if __name__ == "__main__":
    main()
