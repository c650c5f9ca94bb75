#!/usr/bin/env python3
"""Keras ``fit`` of a tiny MNIST-like dense model, profiled by the TensorBoard
callback (``profile_batch=(start, stop)``).

Variants (``--variant``):
  input_bound  tf.data pipeline with an expensive, sequential ``map`` and no
               prefetch: the training step waits for input.
  prefetch     the same pipeline followed by ``.cache().prefetch(AUTOTUNE)``;
               by the profiled epoch the cache is warm.

``--keras 2`` uses tf_keras (the Keras 2 code base, what ``tf.keras`` was
before TF 2.16; it emits per-step ``TraceMe("train", step_num=..., _r=1)``
markers).  ``--keras 3`` uses Keras 3, whose trainer emits no step markers.

The data is synthetic (numpy random, fixed seed): 512 x 784 float32 images,
10 classes, batch 64, i.e. 8 steps per epoch; 3 epochs.  The profile covers
global batches [start, stop] (default 18..24, i.e. epoch 3; the first and
last profiled steps are cut by the profiler start/stop, so 5 complete steps,
Keras step indices 2..6, are in the capture).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import _common  # pylint: disable=wrong-import-position

_common.quiet_tf_logging()

import numpy as np  # pylint: disable=wrong-import-position
import tensorflow as tf  # pylint: disable=wrong-import-position

NUM_EXAMPLES = 512
BATCH = 64
EPOCHS = 3


def expensive_preprocess(x, y):
    """A deliberately costly per-example transform (pure TF ops, no py_function).

    The 784-vector is reshaped to 28x28, tiled to 112x112 and pushed through a
    few matmul + tanh rounds (about 11 MFLOP per example), then reduced back
    to 784 values.
    """
    m = tf.tile(tf.reshape(x, [28, 28]), [4, 4])
    for _ in range(4):
        m = tf.tanh(tf.matmul(m, m) * 0.01)
    x = tf.reshape(m[:28, :28], [784]) + x
    return x, y


def make_dataset(variant):
    rng = np.random.default_rng(0)
    images = rng.random((NUM_EXAMPLES, 784), dtype=np.float32)
    labels = rng.integers(0, 10, NUM_EXAMPLES).astype(np.int64)
    ds = tf.data.Dataset.from_tensor_slices((images, labels))
    # No num_parallel_calls: the map runs sequentially on one thread.
    ds = ds.map(expensive_preprocess)
    ds = ds.batch(BATCH)
    if variant == "prefetch":
        ds = ds.cache().prefetch(tf.data.AUTOTUNE)
    return ds


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--name", required=True, help="capture name (folder under testdata/captures)")
    ap.add_argument("--variant", choices=["input_bound", "prefetch"], default="input_bound")
    ap.add_argument("--keras", choices=["2", "3"], default="2")
    ap.add_argument("--profile-batch", default="18,24",
                    help="first,last global batch to profile (1-based, as Keras counts)")
    args = ap.parse_args()

    if args.keras == "2":
        import tf_keras as keras  # pylint: disable=import-outside-toplevel
    else:
        import keras  # pylint: disable=import-outside-toplevel
    tf.random.set_seed(0)
    keras.utils.set_random_seed(0)

    logdir = _common.fresh_logdir(args.name)
    model = keras.Sequential([
        keras.Input(shape=(784,)),
        keras.layers.Dense(128, activation="relu"),
        keras.layers.Dense(10),
    ])
    model.compile(optimizer="adam",
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    first, last = (int(v) for v in args.profile_batch.split(","))
    tb = keras.callbacks.TensorBoard(log_dir=logdir, profile_batch=(first, last),
                                     histogram_freq=0, write_graph=False)
    model.fit(make_dataset(args.variant), epochs=EPOCHS, callbacks=[tb], verbose=2)
    # Keras writes <logdir>/train/plugins/profile/<run>/<host>.xplane.pb.
    _common.finalize_logdir(logdir, hoist="train")


if __name__ == "__main__":
    main()
