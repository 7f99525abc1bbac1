#!/usr/bin/env python3
"""Writes scenarios/catalog/tp_overlap.toml from NeMo's userbuffers configurations.

NeMo 2's recipes name Transformer Engine userbuffers settings per GEMM by Python objects in
nemo/collections/llm/recipes/tp_overlap_configs/userbuffers.py (tp_comm_overlap_cfg=...). This
reads that file (given as an argument, at the commit the header names), evaluates its dataclasses
with their defaults, and prints one [tp_overlap.<name>] entry per configuration, each GEMM's
settings as TE receives them (MegatronCommOverlapCallback passes dataclasses.asdict() of the object
to initialize_ub). Usage:

    git --git-dir=NeMo/.git show COMMIT:nemo/collections/llm/recipes/tp_overlap_configs/userbuffers.py \
        > userbuffers.py
    python3 tools/catalog/nemo_tp_overlap.py userbuffers.py COMMIT > scenarios/catalog/tp_overlap.toml
"""
import dataclasses
import sys
import types

GEMMS = ["qkv_fprop", "qkv_dgrad", "qkv_wgrad", "proj_fprop", "proj_dgrad",
         "fc1_fprop", "fc1_dgrad", "fc1_wgrad", "fc2_fprop", "fc2_dgrad"]


def load(path):
    # The file imports nemo.lightning.io.mixin.track_io only to register its classes.
    nemo = types.ModuleType("nemo")
    for name in ["nemo.lightning", "nemo.lightning.io", "nemo.lightning.io.mixin"]:
        sys.modules[name] = types.ModuleType(name)
    sys.modules["nemo"] = nemo
    sys.modules["nemo.lightning.io.mixin"].track_io = lambda cls: cls
    scope = {"__name__": "userbuffers"}
    exec(compile(open(path).read(), path, "exec"), scope)
    layer = scope["TransformerLayerTPOverlapCfg"]
    return {k: v for k, v in scope.items() if isinstance(v, layer)}


def truthy(v):
    # PipelineOverlapCfg declares `fp8_buf: bool = (False,)`: a one-element tuple, which TE's
    # `user_ub_cfg[name].get("fp8_buf", False) and ...` takes as true.
    return bool(v)


def main():
    path, commit = sys.argv[1], sys.argv[2]
    configs = load(path)
    print("# Transformer Engine userbuffers configurations NeMo 2's recipes name (tp_comm_overlap_cfg = ...),")
    print("# transcribed by tools/catalog/nemo_tp_overlap.py from NVIDIA-NeMo/NeMo")
    print("# nemo/collections/llm/recipes/tp_overlap_configs/userbuffers.py at")
    print(f"# {commit} (the commit the dgxc v25.05.04 recipes pin;")
    print("# the file is unchanged through ea4b47fd, 2025-05-23): each GEMM's settings as Transformer Engine")
    print("# receives them (MegatronCommOverlapCallback passes dataclasses.asdict() to initialize_ub). A")
    print("# scenario names one with parallelism.tp_overlap_config; its [parallelism.tp_overlap.<gemm>] tables")
    print("# change single settings on top. PipelineOverlapCfg's fp8_buf defaults to the tuple (False,), which")
    print("# TE's check takes as true: fp8_buf = true where a pipeline entry does not set it (it matters only")
    print("# when the GEMM runs in FP8).")
    print("# Left out: the LoRA configurations (*_lora), which reduce-scatter on the data-gradient GEMMs")
    print("# (TE's dgrad reduce-scatter overlap), a placement stepsim does not model.")
    for name, cfg in configs.items():
        if name.endswith("_lora"):
            continue
        print()
        print(f"[tp_overlap.{name}]")
        print(f'source = "NeMo userbuffers.py at {commit[:8]}: {name}"')
        for gemm in GEMMS:
            c = getattr(cfg, gemm)
            if c is None:  # not listed: TE's default for the GEMM
                continue
            d = dataclasses.asdict(c)
            print(f"[tp_overlap.{name}.{gemm}]")
            print(f'method = "{d["method"]}"')
            print(f"num_sm = {int(d['num_sm'])}")
            print(f"set_sm_margin = {'true' if truthy(d['set_sm_margin']) else 'false'}")
            if d["method"] == "pipeline":
                print(f"num_splits = {int(d['num_splits'])}")
            if d["method"] == "ring_exchange":
                print(f"aggregate = {'true' if truthy(d.get('aggregate', False)) else 'false'}")
            if "fp8_buf" in d and d["method"] == "pipeline":
                print(f"fp8_buf = {'true' if truthy(d['fp8_buf']) else 'false'}")
            if truthy(d.get("atomic_gemm", False)):
                print("atomic_gemm = true")


if __name__ == "__main__":
    main()
