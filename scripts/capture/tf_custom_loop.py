#!/usr/bin/env python3
"""Custom TensorFlow training loop with explicit step markers.

A ``tf.function`` train step (dense 784-128-10 model, SGD) fed by a small
tf.data pipeline (light ``map`` + ``prefetch``).  Two warm-up steps run before
the profiler starts (so tracing/graph building stays out of the capture), then
``--steps`` steps (default 5) each run under
``tf.profiler.experimental.Trace('train', step_num=step, _r=1)`` between
``tf.profiler.experimental.start`` and ``stop``.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import _common  # pylint: disable=wrong-import-position

_common.quiet_tf_logging()

import numpy as np  # pylint: disable=wrong-import-position
import tensorflow as tf  # pylint: disable=wrong-import-position


def main():
    args = _common.parse_args(__doc__, "tf_custom_loop", steps=5)

    tf.random.set_seed(0)
    rng = np.random.default_rng(0)
    images = rng.random((1024, 784), dtype=np.float32)
    labels = rng.integers(0, 10, 1024).astype(np.int64)
    ds = (tf.data.Dataset.from_tensor_slices((images, labels))
          .map(lambda x, y: (x * 2.0 - 1.0, y))
          .batch(64)
          .repeat()
          .prefetch(2))

    w1 = tf.Variable(tf.random.normal([784, 128], stddev=0.05), name="w1")
    b1 = tf.Variable(tf.zeros([128]), name="b1")
    w2 = tf.Variable(tf.random.normal([128, 10], stddev=0.05), name="w2")
    b2 = tf.Variable(tf.zeros([10]), name="b2")
    params = [w1, b1, w2, b2]

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(x, w1) + b1)
            logits = tf.matmul(h, w2) + b2
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        grads = tape.gradient(loss, params)
        for p, g in zip(params, grads):
            p.assign_sub(0.1 * g)
        return loss

    it = iter(ds)
    for _ in range(2):  # warm-up: trace the tf.function outside the profile
        train_step(*next(it))

    logdir = _common.fresh_logdir(args.name)
    tf.profiler.experimental.start(logdir)
    for step in range(args.steps):
        with tf.profiler.experimental.Trace("train", step_num=step, _r=1):
            x, y = next(it)
            loss = train_step(x, y)
    _common.stop_tf_profiler(tf, logdir, "final loss", loss)


if __name__ == "__main__":
    main()
