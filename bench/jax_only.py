"""What the benches that run where sbpc is not installed share (JAX and
numpy only): the Llama example loaded by path, emitted modules loaded from
files, a compiled program's bytes as ``memory_analysis`` counts them, and
H100s that are not there (``deviceless_devices``).

``examples/models`` is a package whose ``__init__`` imports sbpc; a machine
lent for a measurement has JAX but not sbpc, so ``llama.py`` is loaded by
its path.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType

_LLAMA = Path(__file__).resolve().parents[1] / "examples" / "models" / "llama.py"


def load_module(path: Path, name: str | None = None) -> ModuleType:
    """The Python file at ``path`` as a module (registered as ``name``, so
    that its dataclasses find their module)."""
    spec = importlib.util.spec_from_file_location(name or path.stem, path)
    module = importlib.util.module_from_spec(spec)
    if name:
        sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


llama = sys.modules.get("llama") or load_module(_LLAMA, "llama")


def compiled_bytes(compiled) -> tuple[float, float]:
    """(argument + output - alias + temporaries, temporaries) per device."""
    m = compiled.memory_analysis()
    total = (
        m.argument_size_in_bytes
        + m.output_size_in_bytes
        - m.alias_size_in_bytes
        + m.temp_size_in_bytes
    )
    return total, m.temp_size_in_bytes


def abstract_args(program: ModuleType, mesh) -> list:
    """An emitted module's arguments as ``jax.ShapeDtypeStruct``s placed on
    ``mesh`` as its ``IN_SPECS`` say: what ``lower`` needs, no data."""
    import jax
    from jax.sharding import NamedSharding

    return [
        jax.ShapeDtypeStruct(shape, dtype, sharding=NamedSharding(mesh, spec))
        for (shape, dtype), spec in zip(
            program.ARG_TYPES, program.IN_SPECS, strict=True
        )
    ]


def plan_facts(directory: str | Path) -> tuple[Path, dict]:
    """(the directory, its ``plan.json``): what ``emit`` wrote for ``run``."""
    out = Path(directory)
    return out, json.loads((out / "plan.json").read_text())


# An H100 SXM (80 GB HBM3) as XLA's GPU compiler describes its target (a
# ``GpuTargetConfig`` text proto: XLA's gpu_specs, with the CUDA runtime
# version that deviceless compilation needs; jax#28376, openxla/xla#25919).
H100_TARGET = """
gpu_device_info {
  cuda_compute_capability { major: 9 minor: 0 }
  core_count: 132
  fpus_per_core: 128
  threads_per_block_limit: 1024
  threads_per_warp: 32
  threads_per_core_limit: 2048
  shared_memory_per_block: 49152
  shared_memory_per_block_optin: 232448
  shared_memory_per_core: 233472
  registers_per_core_limit: 65536
  registers_per_block_limit: 65536
  block_dim_limit_x: 2147483647
  block_dim_limit_y: 65535
  block_dim_limit_z: 65535
  memory_bandwidth: 3352320000000
  l2_cache_size: 52428800
  clock_rate_ghz: 1.98
  device_memory_size: 84929347584
}
platform_name: "CUDA"
dnn_version_info { major: 9 minor: 7 }
runtime_version { major: 12 minor: 8 }
device_description_str: "NVIDIA H100 80GB HBM3"
"""


def deviceless_devices(n: int, memory: float | None = None) -> list:
    """``n`` H100s of one host that this machine does not have: XLA's GPU
    compiler compiles for them (its passes, scheduler and buffer assignment;
    no autotuning) and ``memory_analysis`` reports what each would need.
    ``memory``: the bytes each has (default 80 GB); XLA's scheduler orders
    for overlap, not memory, until a program nears it (and its own
    rematerialisation pass then runs).

    Needs ``jax-cuda12-plugin`` (and ``nvidia-cuda-nvcc-cu12`` for ptxas)
    of JAX's version, and JAX's platforms ``cpu`` (``JAX_PLATFORMS`` or
    ``jax.config``) before its backends start: the plugin then skips its
    CUDA checks (it cannot start a client without a GPU) and makes
    topologies.
    """
    from jax.experimental import topologies

    try:
        target = H100_TARGET
        if memory is not None:
            target = re.sub(
                r"device_memory_size: \d+", f"device_memory_size: {int(memory)}", target
            )
        topology = topologies.get_topology_desc(
            platform="cuda", target_config=target, topology=f"1x1x{n}"
        )
    except NotImplementedError as e:  # no CUDA plugin registered
        raise SystemExit(
            f"--deviceless needs jax-cuda12-plugin=={_jax_version()} and "
            f"JAX_PLATFORMS=cpu: {e}"
        ) from None
    return list(topology.devices)


def _jax_version() -> str:
    import jax

    return jax.__version__


def gathers(compiled) -> int:
    """How many all-gathers the compiled program runs (sync or async)."""
    text = compiled.as_text()
    return text.count(" all-gather-start(") + text.count(" all-gather(")
