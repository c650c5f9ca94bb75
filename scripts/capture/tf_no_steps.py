#!/usr/bin/env python3
"""TensorFlow eager ops with no step markers at all.

Plain eager matmuls / element-wise ops in a Python loop under
``tf.profiler.experimental.start/stop``: no ``Trace(..., _r=1)``, no Keras
``fit``, no tf.function, no tf.data.  xprof falls back to "no step marker
observed" for this kind of capture.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import _common  # pylint: disable=wrong-import-position

_common.quiet_tf_logging()

import tensorflow as tf  # pylint: disable=wrong-import-position


def main():
    args = _common.parse_args(__doc__, "tf_no_steps", iterations=20)

    tf.random.set_seed(0)
    a = tf.random.normal([256, 256])
    b = tf.random.normal([256, 256])
    _ = tf.matmul(a, b)  # warm-up (kernel selection) outside the profile

    logdir = _common.fresh_logdir(args.name)
    tf.profiler.experimental.start(logdir)
    acc = tf.zeros([256, 256])
    for _ in range(args.iterations):
        c = tf.matmul(a, b)
        acc = acc + tf.nn.relu(c) * 0.01
        a = tf.tanh(acc)
    total = tf.reduce_sum(acc)
    _common.stop_tf_profiler(tf, logdir, "sum", total)


if __name__ == "__main__":
    main()
