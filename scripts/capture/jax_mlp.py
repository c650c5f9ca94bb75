#!/usr/bin/env python3
"""Small JAX MLP training loop under ``jax.profiler.trace``.

A jitted SGD step on a 784-128-10 MLP (synthetic data, batch 64).  One
warm-up step (compilation) runs before the trace; then ``--steps`` steps
(default 5) each run inside ``jax.profiler.StepTraceAnnotation('train',
step_num=i)``.  JAX writes ``<logdir>/plugins/profile/<run>/<host>.xplane.pb``
(the XSpace holds a ``/host:CPU`` plane plus the XLA CPU plane(s)).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import _common  # pylint: disable=wrong-import-position

_common.quiet_tf_logging()
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # pylint: disable=wrong-import-position
import jax.numpy as jnp  # pylint: disable=wrong-import-position


def init_params(key):
    k1, k2 = jax.random.split(key)
    return {
        "w1": jax.random.normal(k1, (784, 128)) * 0.05, "b1": jnp.zeros(128),
        "w2": jax.random.normal(k2, (128, 10)) * 0.05, "b2": jnp.zeros(10),
    }


def loss_fn(params, x, y):
    h = jax.nn.relu(x @ params["w1"] + params["b1"])
    logits = h @ params["w2"] + params["b2"]
    logp = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))


@jax.jit
def train_step(params, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    params = jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)
    return params, loss


def main():
    args = _common.parse_args(__doc__, "jax_mlp", steps=5)

    key = jax.random.PRNGKey(0)
    params = init_params(key)
    kx, ky = jax.random.split(jax.random.PRNGKey(1))
    xs = jax.random.uniform(kx, (args.steps + 1, 64, 784))
    ys = jax.random.randint(ky, (args.steps + 1, 64), 0, 10)
    params, loss = train_step(params, xs[0], ys[0])  # compile outside the trace
    loss.block_until_ready()

    logdir = _common.fresh_logdir(args.name)
    with jax.profiler.trace(logdir):
        for i in range(args.steps):
            with jax.profiler.StepTraceAnnotation("train", step_num=i):
                params, loss = train_step(params, xs[i + 1], ys[i + 1])
                loss.block_until_ready()
    print("final loss", float(loss))
    _common.finalize_logdir(logdir)


if __name__ == "__main__":
    main()
