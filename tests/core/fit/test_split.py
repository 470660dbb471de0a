"""A model split across machines (llama.cpp RPC): layers by free memory, network cost."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.catalog import load_catalog
from desktop.core.errors import FitError
from desktop.core.fit import FitTarget
from desktop.core.fit.split import Link, RpcBox, SplitResult, check_endpoint, estimate_split
from desktop.core.gguf import read_gguf
from desktop.core.hardware import CpuInfo, GpuInfo, HardwareProfile, MemoryInfo

GIB = 1024**3


def _profile(ram: int, *, gpu: int = 0, bandwidth: float = 20.0) -> HardwareProfile:
    gpus: tuple[GpuInfo, ...] = ()
    if gpu:
        gpus = (
            GpuInfo(
                vendor="nvidia",
                name="RTX 3060",
                memory_total_bytes=gpu,
                memory_free_bytes=gpu,
                bandwidth_gbps=360.0,
            ),
        )
    return HardwareProfile(
        cpu=CpuInfo(
            brand="test CPU",
            arch="x86_64",
            physical_cores=4,
            logical_cores=8,
            memory_bandwidth_gbps=bandwidth,
        ),
        memory=MemoryInfo(total_bytes=ram, available_bytes=ram),
        gpus=gpus,
    )


@pytest.fixture(scope="module")
def smollm2(smollm2_path: Path) -> FitTarget:
    """SmolLM2-135M: 30 layers, the real header."""
    target = FitTarget.from_gguf(read_gguf(smollm2_path))
    assert target.arch.n_layers == 30
    return target


def _boxes(*rams: int) -> tuple[RpcBox, ...]:
    return tuple(RpcBox(f"10.0.0.{i + 2}:50052", _profile(r)) for i, r in enumerate(rams))


def test_two_boxes_of_8_and_4_gib_take_layers_two_to_one(smollm2: FitTarget) -> None:
    result = estimate_split(
        smollm2, _profile(16 * GIB), _boxes(8 * GIB, 4 * GIB), n_ctx=4096, local_layers=False
    )
    local, big, small = result.holders
    assert (big.n_layers, small.n_layers) == (20, 10)
    assert (big.first_layer, small.first_layer) == (0, 20)
    assert local.n_layers == 0
    assert local.output
    assert result.fits
    # The KV cache follows its layers: twice the layers, twice the cache.
    assert big.memory.kv_cache == 2 * small.memory.kv_cache > 0
    assert big.memory.weights > small.memory.weights > 0
    assert result.tensor_split == (20, 10)
    assert result.n_gpu_layers == 30
    assert result.rpc_servers == ("10.0.0.2:50052", "10.0.0.3:50052")
    assert result.llama_args() == (
        "--rpc 10.0.0.2:50052,10.0.0.3:50052 -ngl 30 --tensor-split 20,10"
    )
    shares = {s.machine: s for s in result.machines()}
    assert shares["10.0.0.2:50052"].n_layers == 20
    assert shares["10.0.0.2:50052"].bytes == big.memory.total
    # local -> box 1, box 1 -> box 2 (relayed through this machine: two), box 2 -> local
    assert result.crossings == 4
    assert result.network_bytes_per_token == 4 * smollm2.arch.n_embd * 4


def test_this_machine_takes_its_share_by_ram_when_it_has_no_gpu(smollm2: FitTarget) -> None:
    result = estimate_split(smollm2, _profile(12 * GIB), _boxes(8 * GIB, 4 * GIB), n_ctx=2048)
    local, big, small = result.holders
    # 12 : 8 : 4 of 30 layers; llama.cpp runs the CPU's layers first.
    assert (local.n_layers, big.n_layers, small.n_layers) == (15, 10, 5)
    assert (local.first_layer, big.first_layer, small.first_layer) == (0, 15, 25)
    assert result.n_gpu_layers == 15
    assert local.memory.kv_cache == big.memory.kv_cache * 15 // 10


def test_local_gpu_comes_last_with_the_output_layer(smollm2: FitTarget) -> None:
    result = estimate_split(smollm2, _profile(16 * GIB, gpu=12 * GIB), _boxes(12 * GIB), n_ctx=2048)
    names = [h.name for h in result.holders]
    assert names[1].startswith("10.0.0.2:50052")
    assert names[2].startswith("this machine GPU")
    box, gpu = result.holders[1:]
    assert box.n_layers == gpu.n_layers == 15
    assert gpu.output
    assert not box.output
    assert result.n_gpu_layers == -1
    assert result.tensor_split == (15, 16)  # the output layer is one more slot on its device


def test_a_box_too_small_for_one_layer_is_left_out(smollm2: FitTarget) -> None:
    result = estimate_split(
        smollm2,
        _profile(16 * GIB),
        _boxes(8 * GIB, 256 * 1024 * 1024),
        n_ctx=4096,
        local_layers=False,
    )
    assert result.left_out == ("10.0.0.3:50052 CPU",)
    assert result.rpc_servers == ("10.0.0.2:50052",)
    assert [h.n_layers for h in result.holders] == [0, 30]
    assert result.fits
    assert any("left out" in r for r in result.reasons)


def test_boxes_too_small_for_the_model_do_not_fit() -> None:
    model, variant = load_catalog().variant("qwen2.5-7b-instruct:Q4_K_M")
    target = FitTarget.from_variant(model, variant)
    # Each box can take a layer, but not half of a 4.4 GB model.
    result = estimate_split(
        target, _profile(16 * GIB), _boxes(2 * GIB, 2 * GIB), n_ctx=4096, local_layers=False
    )
    assert result.left_out == ()
    assert [h.n_layers for h in result.holders] == [0, 14, 14]
    assert not result.fits
    assert not any(h.fits for h in result.holders[1:])
    assert any("10.0.0.2:50052 CPU needs" in r and "more than the" in r for r in result.reasons)


def test_the_network_lowers_tokens_per_s(smollm2: FitTarget) -> None:
    boxes = _boxes(8 * GIB, 4 * GIB)

    def split(link: Link) -> SplitResult:
        return estimate_split(
            smollm2, _profile(16 * GIB), boxes, n_ctx=2048, local_layers=False, link=link
        )

    fast, slow = split(Link(100.0, 0.0)), split(Link(0.1, 2.0))
    assert fast.tokens_per_s is not None
    assert slow.tokens_per_s is not None
    assert slow.network_s_per_token > fast.network_s_per_token
    # 4 transfers of 576 floats: 4 x 2 ms latency plus 18 KiB at 0.1 Gbit/s.
    assert slow.network_s_per_token == pytest.approx(4 * 0.002 + 4 * 576 * 4 * 8 / 0.1e9)
    assert slow.tokens_per_s < fast.tokens_per_s
    assert slow.tokens_per_s_without_network is not None
    assert slow.tokens_per_s < slow.tokens_per_s_without_network
    assert fast.tokens_per_s_without_network == pytest.approx(slow.tokens_per_s_without_network)
    # The time per token is what the devices take plus the network, nothing else.
    gap = 1 / slow.tokens_per_s - 1 / slow.tokens_per_s_without_network
    assert gap == pytest.approx(slow.network_s_per_token)


def test_the_output_layer_on_a_box_sends_the_logits_back(smollm2: FitTarget) -> None:
    # A local GPU left out of the layers: the output layer stays on this CPU, no logits cross.
    result = estimate_split(
        smollm2, _profile(16 * GIB, gpu=8 * GIB), _boxes(4 * GIB), n_ctx=2048, local_layers=False
    )
    assert result.holders[0].output
    assert result.tensor_split == (30, 0)  # the local GPU gets nothing
    assert result.network_bytes_per_token == 2 * smollm2.arch.n_embd * 4


def test_box_specs_and_endpoints(tmp_path: Path) -> None:
    path = tmp_path / "box.json"
    _profile(8 * GIB).save(path)
    box = RpcBox.parse(f"{path}@192.168.1.20:50052")
    assert box.endpoint == "192.168.1.20:50052"
    assert box.profile.memory.available_bytes == 8 * GIB
    assert box.devices()[0].processor == "cpu"
    assert check_endpoint("[::1]:50052") == "[::1]:50052"
    for bad in ("192.168.1.20", "host:0", "host:port", ":50052"):
        with pytest.raises(FitError, match="HOST:PORT"):
            check_endpoint(bad)
    with pytest.raises(FitError, match=r"PROFILE\.json@HOST:PORT"):
        RpcBox.parse("192.168.1.20:50052")
    with pytest.raises(FitError, match="Cannot read the hardware profile"):
        RpcBox.parse(f"{tmp_path / 'missing.json'}@h:1")


def test_a_box_with_a_gpu_offers_its_vram(smollm2: FitTarget) -> None:
    box = RpcBox("10.0.0.9:50052", _profile(64 * GIB, gpu=6 * GIB))
    (device,) = box.devices()
    assert device.processor == "gpu"
    assert device.capacity == 6 * GIB
    with pytest.raises(FitError, match="twice"):
        estimate_split(smollm2, _profile(8 * GIB), (box, box), n_ctx=512)
