#!/usr/bin/env python3
"""A TensorFlow 1 style timeline: one Chrome trace per session.run.

The TF1 recipe (still in TensorFlow 2 under ``tf.compat.v1``): a graph run
by a ``Session`` with ``RunOptions(trace_level=FULL_TRACE)`` fills
``RunMetadata.step_stats``, and ``timeline.Timeline(step_stats)
.generate_chrome_trace_format()`` turns it into a Chrome trace.  Each traced
``session.run`` is written to its own file, ``timeline_01.json``,
``timeline_02.json``, ..., as TF1 training loops did: several files of one
run, one step each.  A small conv net's forward and backward pass and an SGD
update on CPU (this machine has no GPU, so there are no stream processes;
the corpus has GPU timelines).  ``show_memory=True`` on the last step adds
the "Allocators" counters and tensor object events.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import _common  # pylint: disable=wrong-import-position

_common.quiet_tf_logging()

import numpy as np  # pylint: disable=wrong-import-position
import tensorflow as tf  # pylint: disable=wrong-import-position
from tensorflow.python.client import timeline  # pylint: disable=wrong-import-position

v1 = tf.compat.v1


def build_graph():
    x = v1.placeholder(tf.float32, [8, 16, 16, 3], name="images")
    y = v1.placeholder(tf.int32, [8], name="labels")
    with v1.variable_scope("conv1"):
        w = v1.get_variable("w", [3, 3, 3, 8], initializer=v1.glorot_uniform_initializer(seed=1))
        h = tf.nn.relu(tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME"))
    with v1.variable_scope("dense"):
        flat = tf.reshape(h, [8, 16 * 16 * 8])
        w2 = v1.get_variable("w", [16 * 16 * 8, 10], initializer=v1.glorot_uniform_initializer(seed=2))
        logits = tf.matmul(flat, w2)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train = v1.train.GradientDescentOptimizer(0.01).minimize(loss)
    return x, y, loss, train


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--name", default="tf1_timeline")
    ap.add_argument("--steps", type=int, default=3)
    args = ap.parse_args()

    v1.disable_eager_execution()
    v1.set_random_seed(0)
    rng = np.random.default_rng(0)
    x, y, loss, train = build_graph()
    out = _common.fresh_logdir(args.name)
    # One inter-op thread: the ops of a step run one after the other, so the
    # files stay small and the timeline's lanes few.
    config = v1.ConfigProto(inter_op_parallelism_threads=1, intra_op_parallelism_threads=1)
    with v1.Session(config=config) as sess:
        sess.run(v1.global_variables_initializer())
        feed = {x: rng.standard_normal((8, 16, 16, 3), dtype=np.float32), y: rng.integers(0, 10, 8)}
        sess.run(train, feed_dict=feed)  # warm-up, not traced
        for step in range(1, args.steps + 1):
            options = v1.RunOptions(trace_level=v1.RunOptions.FULL_TRACE)
            metadata = v1.RunMetadata()
            _, value = sess.run([train, loss], feed_dict=feed, options=options, run_metadata=metadata)
            trace = timeline.Timeline(metadata.step_stats).generate_chrome_trace_format(
                show_memory=step == args.steps)
            with open(os.path.join(out, "timeline_%02d.json" % step), "w") as f:
                f.write(trace)
            print("step", step, "loss", float(value))


if __name__ == "__main__":
    main()
