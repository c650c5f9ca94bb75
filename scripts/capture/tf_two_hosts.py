#!/usr/bin/env python3
"""Two TensorFlow processes profiled into ONE run folder (two "hosts").

``driver`` mode (the default) starts two ``worker`` processes on this machine,
each running ``tf.profiler.experimental.server.start(port)`` (loopback) and a
custom training loop with ``Trace('train', step_num=, _r=1)`` step markers.
Once both workers report that they are training, the driver calls
``tf.profiler.experimental.client.trace('grpc://localhost:P1,grpc://localhost:P2',
logdir, duration_ms)``: TensorFlow's profiler client collects one XSpace per
service address and writes them side by side into a single
``plugins/profile/<run>/`` folder.  The files are named after the address the
client dialled (``localhost_<port>.xplane.pb``), not after the machine's host
name, so the two hosts do not collide even on one machine.  The driver picks
two fixed ports (default 6101/6102) so the file names are reproducible.
"""

import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import _common  # pylint: disable=wrong-import-position

_common.quiet_tf_logging()


def worker(port, seconds, seed):
    import numpy as np  # pylint: disable=import-outside-toplevel
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    tf.profiler.experimental.server.start(port)
    tf.random.set_seed(seed)
    rng = np.random.default_rng(seed)
    images = rng.random((1024, 784), dtype=np.float32)
    labels = rng.integers(0, 10, 1024).astype(np.int64)
    ds = (tf.data.Dataset.from_tensor_slices((images, labels))
          .batch(64).map(lambda x, y: (x * 2.0 - 1.0, y)).repeat().prefetch(2))
    w1 = tf.Variable(tf.random.normal([784, 128], stddev=0.05))
    w2 = tf.Variable(tf.random.normal([128, 10], stddev=0.05))

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            logits = tf.matmul(tf.nn.relu(tf.matmul(x, w1)), w2)
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        g1, g2 = tape.gradient(loss, [w1, w2])
        w1.assign_sub(0.1 * g1)
        w2.assign_sub(0.1 * g2)
        return loss

    it = iter(ds)
    train_step(*next(it))
    print("READY", flush=True)
    deadline = time.time() + seconds
    step = 0
    while time.time() < deadline:
        with tf.profiler.experimental.Trace("train", step_num=step, _r=1):
            train_step(*next(it))
        step += 1
        # ~20 ms per step keeps the capture small.
        time.sleep(0.02)
    print("worker", port, "ran", step, "steps", flush=True)


def driver(name, ports, duration_ms):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    logdir = _common.fresh_logdir(name)
    procs = []
    for i, port in enumerate(ports):
        procs.append(subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "worker", "--port", str(port),
             "--seconds", "30", "--seed", str(i)],
            stdout=subprocess.PIPE, text=True))
    try:
        for p in procs:  # wait until both are training
            for line in p.stdout:
                if line.startswith("READY"):
                    break
        time.sleep(1.0)
        addresses = ",".join(f"grpc://localhost:{p}" for p in ports)
        tf.profiler.experimental.client.trace(addresses, logdir, duration_ms)
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(timeout=30)
    _common.finalize_logdir(logdir)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", nargs="?", choices=["driver", "worker"], default="driver")
    ap.add_argument("--name", default="tf_two_hosts")
    ap.add_argument("--ports", default="6101,6102")
    ap.add_argument("--port", type=int)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--duration-ms", type=int, default=300)
    args = ap.parse_args()
    if args.mode == "worker":
        worker(args.port, args.seconds, args.seed)
    else:
        driver(args.name, [int(p) for p in args.ports.split(",")], args.duration_ms)


if __name__ == "__main__":
    main()
