"""Machine presets: real accelerators as cost-model option text.

``cost_model="h100-sxm"`` (or ``sbp-propagate{cost_model=h100-sxm}``) is
the text below; items after the name replace the preset's
(``h100-sxm,net_bw=25e9``).  Figures come from the vendors' datasheets
(docs/machines.md cites each): dense (not 2:4-sparse) tensor-core/MXU rates
per operand class, HBM bandwidth and capacity, the link inside a node
(NVLink through NVSwitch, a TPU slice's ICI) and the network between nodes
(one InfiniBand port per GPU, a TPU's data-center network).  ``flops`` is
the rate of work that is not a product (elementwise ops, on the vector
units).  Latencies are not datasheet figures: they are the estimates the
default model already used (1 us per round inside a node, 5 us across), and
so are the launch costs (``overhead``, not set here: each level's default,
5 us inside a node and 10 us across).  ``a2a=1``: an all-to-all sends to
every peer at once (NCCL's grouped sends, the ICI's all-to-all), one round's
latency rather than a ring's ``n-1``.

``cpu-sim`` is the machine the tests and benchmarks run on: 8 simulated
CPU devices measured by ``bench/calibrate.py`` (docs/machines.md says how
to refresh it); its devices share the host's memory.
"""

from __future__ import annotations

# An H100 SXM5 80GB in an 8-GPU HGX/DGX node: NVLink 4 (900 GB/s both ways,
# 450 GB/s each), one 400 Gb/s NDR InfiniBand port per GPU across nodes.
H100_SXM = (
    "flops=67e12,flops_f64=67e12,flops_f32=67e12,flops_tf32=494.7e12,"
    "flops_f32_default=494.7e12,flops_f32_high=494.7e12,"
    "flops_bf16=989e12,flops_f16=989e12,flops_f8=1979e12,flops_i8=1979e12,"
    "hbm=3.35e12,mem=80e9,"
    "node=8,node_bw=450e9,node_lat=1e-6,net_bw=50e9,net_lat=5e-6,"
    "transfer_bw=50e9,transfer_lat=5e-6,a2a=1"
)

# An A100 SXM4 80GB in an 8-GPU HGX/DGX node: NVLink 3 (600 GB/s both ways),
# one 200 Gb/s HDR InfiniBand port per GPU.  No fp8 units: fp8 operands run
# as f16.  f32 products below HIGHEST precision run as tf32, as on the H100.
A100_80GB = (
    "flops=19.5e12,flops_f64=19.5e12,flops_f32=19.5e12,flops_tf32=156e12,"
    "flops_f32_default=156e12,flops_f32_high=156e12,"
    "flops_bf16=312e12,flops_f16=312e12,flops_f8=312e12,flops_i8=624e12,"
    "hbm=2.039e12,mem=80e9,"
    "node=8,node_bw=300e9,node_lat=1e-6,net_bw=25e9,net_lat=5e-6,"
    "transfer_bw=25e9,transfer_lat=5e-6,a2a=1"
)

# A TPU v5p chip: ICI inside a slice (up to 6144 chips in one job; 1200 GB/s
# both ways over 6 ports, a ring along one torus axis sends on 2 of them:
# 200 GB/s), the data-center network (50 Gb/s per chip) between slices.
# f32 products are exact f32 (six bf16 passes: 459/6 Tflop/s), as is tf32 (no
# tf32 units); f64 has no hardware (a software estimate).  f32 products at
# DEFAULT precision are one bf16 pass, at HIGH three (XLA's TPU precisions).
TPU_V5P = (
    "flops=76.5e12,flops_f64=19e12,flops_f32=76.5e12,flops_tf32=76.5e12,"
    "flops_f32_default=459e12,flops_f32_high=153e12,"
    "flops_bf16=459e12,flops_f16=459e12,flops_f8=459e12,flops_i8=918e12,"
    "hbm=2.765e12,mem=95e9,"
    "node=6144,node_bw=200e9,node_lat=1e-6,net_bw=6.25e9,net_lat=1e-5,"
    "transfer_bw=6.25e9,transfer_lat=1e-5,a2a=1"
)

# This machine: 8 simulated CPU devices (bench/calibrate.py's chain
# calibration of docs/benchmarks.md); memory: the host's 25 GB over 8.
CPU_SIM = (
    "bw=2.14e9,lat=1.07e-5,overhead=3.45e-5,flops=1.88e10,hbm=3.61e9,"
    "flops_half=8.65,mem=3e9"
)

PRESETS: dict[str, str] = {
    "h100-sxm": H100_SXM,
    "a100-80gb": A100_80GB,
    "tpu-v5p": TPU_V5P,
    "cpu-sim": CPU_SIM,
}
