#!/usr/bin/env python3
"""Runs `stepsim validate --format json` on the shipped validation scenarios and checks accuracy.

Targets (MAPE, worst case) per group, from the issues: dense A100 7% / 15% (issue 4); dense H100 BF16
5% / 15%, dense H100 FP8 6% / 15%, dense GB200 8% / 15% (issue 11), and each dgxc model's predicted
FP8/BF16 speed-up within 10% of the measured one; TensorRT-LLM static batches 10% / 20% and the
gpt-fast decode cases within 5% (issue 14). A target that is met is enforced. A target not met
yet is printed as MISSED and enforced at the figure this revision reached (`reached`), so that the
gap can only close: a regression fails, an improvement shows in the log. The figures are printed either
way, so CI logs carry them, and so are the cases stepsim does not simulate yet, with their reasons
(they are in no error figure)."""
import json
import os
import subprocess
import sys
import tempfile

binary = sys.argv[1]
# The accuracy table `stepsim run` shows (scenarios/accuracy/validated.toml) is this run's errors per
# class of run: written alongside, and compared with the shipped file below.
accuracy = os.path.join(tempfile.mkdtemp(prefix="stepsim-accuracy-"), "validated.toml")
out = subprocess.run([binary, "validate", "--format", "json", "--jobs", "2", "--write-accuracy", accuracy],
                     check=True, capture_output=True, text=True).stdout
report = json.loads(out)
failures = []
skipped = []
for case in report["cases"]:
    for key in ("id", "group", "measured_step_s"):
        if key not in case:
            failures.append(f"case without `{key}`")
    if "not_simulated" in case:
        skipped.append(case)
        if "predicted_step_s" in case or "error" in case:
            failures.append(f"not-simulated case {case['id']} has a prediction")
        continue
    for key in ("predicted_step_s", "error"):
        if key not in case:
            failures.append(f"case {case.get('id')} without `{key}`")
    print(f"{case['id']:48s} {case['group']:36s} measured {case['measured_step_s']:9.3f} s "
          f"predicted {case['predicted_step_s']:9.3f} s error {100 * case['error']:+6.1f}%")
for case in skipped:
    print(f"{case['id']:48s} {case['group']:36s} measured {case['measured_step_s']:9.3f} s "
          f"not simulated: {case['not_simulated']}")
    if "load_error" in case:
        print(f"{'':48s} stepsim refuses it: {case['load_error']}")


def pct(x, signed=False):
    return "-" if x is None else f"{100 * x:{'+' if signed else ''}.1f}%"


for name, g in report["groups"].items():
    print(f"group {name}: {g['cases']} cases, {g['not_simulated']} not simulated, MAPE {pct(g['mape'])}, "
          f"max |error| {pct(g['max_abs_error'])}, mean error {pct(g['mean_error'], True)}")
    listed = sum(1 for c in report["cases"] if c["group"] == name)
    if g["cases"] + g["not_simulated"] != listed:
        failures.append(f"group {name}: {g['cases']} + {g['not_simulated']} cases, but {listed} listed")
# group: (cases simulated, target MAPE, target worst case, reached MAPE, reached worst case)
# The H200 calibration round of 2026-12-04 moved the reached figures of H100, GB200 and decode: GEMMs
# timed from CUDA graphs in both clock states, and decode kernels without their launch
# (docs/simulation.md section 6). Measured kernels replaced biased
# ones; the gap they uncovered is reported, not hidden, and can only close from here. The clock by
# tensor-core duty (2026-12-05: each step at the measured clock of its own duty, not one global
# figure) closed 2-3 points of it. Hopper's FP8 cast-transpose at its measured 0.39 of HBM bandwidth
# (2026-12-05, TE's own benchmark and DeepSeek's profile agree) closed 3.7 points of FP8's, and 0.8 of GB200's (assumed there: the same kernels).
# Ring attention's merges of its steps' partial results (Transformer Engine's CP corrections) closed
# 0.3-0.4 points of each dense group's.
# The H100 round (2026-12-05) measured on an H100 SXM what the H100 had taken from the H200: its clock by
# tensor-core duty is higher (0.871 at full duty against 0.844; HBM3 leaves the SMs more of the 700 W),
# which opened 2.8 points of each H100 dense group; cuDNN attention measured short-run (0.501, not the
# derived 0.589) closed 0.8-1.2. The reached figures moved to the measured model's; GB200's tightened.
# Each NCCL collective holding its own channels' SMs (2026-12-06: 16 of 132 for a TP-8 collective, 2-4
# for a pipeline send across nodes, 16 for an all-to-all of a node, summed while several run; before,
# 20 while any ran) opened 1.2 points of H100 BF16's, 1.6 of FP8's and 0.2 of GB200's: the flat charge had been standing in for
# part of what the dense groups miss.
# Userbuffers as the runs configured it (2026-12-06: each GEMM's method, SMs and SM margin from the
# recipes' own configs, dgxc v25.02.01's YAML and NeMo's pinned performance scripts; the GEMMs given a
# margin run on the SMs it leaves) and the run configs' dropout (GPT-3) and selective recompute with
# FlashAttention-2 (Nemotron-4 340B on H100) closed 1.5 points of H100 BF16's and 1.7 of FP8's; GB200's
# MAPE stayed, its worst case (Nemotron-4 340B FP8, whose NeMo config runs the forward's reductions as
# copy-engine ring exchanges) opened 0.4.
# Attention by shape (2026-12-07: each fused attention kernel at its GPU's figure over 1 + seq_half /
# keys + tiles_half / tiles, fitted to the FlashAttention-3 paper's H100 figures and aiconfigurator's
# context-attention timings; the catalog's figures refitted as the limits): a TP-8 or TP-4 shard's few
# query tiles run slower, long rows over many tiles faster. H100 BF16 11.6% / 13.2% -> 9.7% / 12.8%,
# FP8 12.0% / 19.8% -> 9.2% / 18.3%, GB200 14.4% / 19.7% -> 12.1% / 16.3%; LLM Foundry's long-sequence
# rows (32K and 64K, few heads over many tiles) run faster and open 0.9 / 2.1 points of its figures:
# its FlashAttention-2 2.4.2 runs slower at 32K than the paper's and our measurements of the kernel say.
# B200's and GB200's decode GEMM figures from aiconfigurator's ratios to the H200 (2026-12-07; they had
# the H200's): each GEMM's fixed time 1.94 us on GB200, not 2.46: GB200 12.1% / 16.3% -> 12.3% / 16.6%.
TARGETS = {
    "public-a100-dense": (18, 0.07, 0.15, 0.07, 0.15),
    # The v25.02.01 runs as their YAML and scripts set them (2026-12-06): Llama 3.1 405B with the
    # recipe's 16 query groups and GPT-2 vocabulary, GPT-3 at VP 6, Nemotron-4 15B's fp32 gradient
    # reduction, gradients averaged in NCCL, the optimizers' state bytes: bf16 11.5% / 14.5% -> 11.6% /
    # 13.2%, fp8 12.1% / 19.9% -> 12.4% / 20.6%.
    "public-h100-dense-bf16": (19, 0.05, 0.15, 0.098, 0.129),
    "public-h100-dense-fp8": (18, 0.06, 0.15, 0.093, 0.184),
    # The v25.05.04 FP8 runs keep and gather their weights in FP8 (fp8_param_gather, transcribed
    # 2026-12-06 from NeMo's bf16_with_fp8_mixed): 14.1% / 20.5% -> 14.3% / 21.3%.
    "public-gb200-dense": (12, 0.08, 0.15, 0.124, 0.167),
    # Issue 14: whole static batches of TensorRT-LLM v0.6.1; gpt-fast batch-1 decode within 5%.
    "public-h100-static-batch-inference": (16, 0.10, 0.20, 0.10, 0.20),
    # NeMo AutoModel's PyTorch runs (a dense FSDP2 + CP run; MoE with DeepEP: two on one node,
    # DeepSeek-V3 on 256 and 1,024 and Kimi K2 on 256 under pipelining), transcribed 2026-12-06; no
    # target from an issue: a guard at the figures reached. The first two MoE cases read 5.2% / 7.1%;
    # ZeRO-3's backward prefetch in FSDP's order brought three cases to 3.0% / 5.2%; the gate those runs
    # use (FakeBalancedGate's consecutive experts) and DeepEP's one copy per GPU took the MoE cases to
    # -8..-35%, the dense one staying at +1.4%: the MoE runs miss what the Megatron-Core MoE cases miss.
    # torch 2.8's lock-step pipelining runtime (pp_p2p = "lockstep", 2026-12-06) on the three pipelined
    # runs: 20.2% / 34.8% -> 20.0% / 34.3%; Qwen3's query and key norms (qk_norm): 19.8%; each
    # schedule.step() reducing and regathering (local_batch): 19.4% / 32.5%; the pipelined runs'
    # FSDP2 as it runs under the stage (SHARD_GRAD_OP per micro-batch, one unsharded copy): 12.6% / 24.0%;
    # their shared experts on AutoModel's side stream (shared_expert_overlap): 14.0% / 26.4%; attention
    # by shape (2026-12-07): 14.1% / 26.3%. The two GPT-OSS runs simulate since FlexAttention has a
    # figure (2026-12-07, the FlexAttention paper's ratio to FlashAttention-2 on H100): -20.7% and
    # -14.8%, 8 cases at 15.0% / 26.3%; their attention sinks as AutoModel applies them after the kernel
    # (model.attention_sinks, an eager rescale each way): -19.0% and -13.3%, 14.6% / 26.3%.
    "public-automodel-h100": (8, 0.10, 0.15, 0.147, 0.263),
    # Met since the A100's decode GEMMs take aiconfigurator's A100 / H200 ratios (2026-12-05).
    "public-decode": (2, 0.05, 0.05, 0.05, 0.05),
    # MosaicML LLM Foundry's MPT benchmark tables on H100 (Composer, PyTorch FSDP1, FlashAttention-2,
    # no Transformer Engine but for the FP8 rows' te.Linear), all 70 BF16 and 7 FP8 rows, transcribed
    # 2026-12-06 from the code the benchmark ran;
    # no target from an issue: a guard at the figures reached. Every case is fast, the models of 7B and
    # below by 15-30% (docs/simulation.md section 6, "A third framework's small models"). Their
    # flash path's unpadding (workload.attention_unpad): 21.9% / 35.4% -> 17.7% / 30.0% (BF16 rows);
    # with the FP8 rows (-9..-25%) 17.7% / 30.0%; attention by shape (2026-12-07): 18.6% / 32.1%, the
    # 32K and 64K rows at -30% (above). The rows on 8-64 GPUs and the large-scale MPT-13b and -30b ran
    # attn_impl triton, not the flash path (2026-12-07: submit_benchmarks.py's default, which the table's
    # sweep.sh does not override; docs/simulation.md, "LLM Foundry's Triton attention"): no unpadding
    # and its host waits there, FlashAttention-2's figure standing in for the Triton kernel: 18.6% /
    # 32.1% -> 22.3% / 34.8%, the earlier unpadding gain undone where it had never happened.
    # 2026-12-07 (later): the cases ran as FSDP2 by default although Composer 0.16-0.17 wraps with
    # PyTorch 2.1's FSDP1 (fsdp_version = 1: no copies in and out of the gather buffers): 23.9% /
    # 35.7%; the BF16 rows' nn.Linear bias gradients as reductions of their own (workload.bias_grad):
    # 23.2% / 35.4%; the split QKV projection's gradients concatenated back by a copy
    # (workload.qkv_grad_concat, MPT's qkv.split): 22.7% / 35.2%.
    "public-llmfoundry-h100": (77, 0.10, 0.15, 0.228, 0.353),
    # The same sweep's A100 80GB rows (2026-12-07): MPT 760M-30B on 8 GPUs in amp_bf16, 512-65,536
    # tokens, the configuration of the H100 rows with the Triton FlashAttention figure the A100 has
    # (the FlashAttention-2 paper's measurement of that kernel, efficiency.attention_triton); no target
    # from an issue: a guard at the figures reached. Short rows within a few percent, the 16K-64K rows
    # 10-27% slow (the kernel keeps more of its speed on long rows than the shape terms give it).
    # With the QKV gradients' copy (workload.qkv_grad_concat): 10.0% / 26.7% -> 9.9% / 26.8%.
    "public-llmfoundry-a100": (42, 0.10, 0.15, 0.10, 0.269),
    # torchtitan's published runs (2026-12-07): Trainy's Llama 3.1 8B on 32 and 64 H200 (FSDP2,
    # torch.compile, torchao Float8, per-op selective checkpointing as its code runs it:
    # recompute_modules = ["alternate_mm"]) at +0.6% / -1.0%; with Megatron-Core's closest setting
    # (core_attn and layernorm) they read +4.3% / +2.6%. The torchtitan team's own H100 rows ran on a
    # 96 GB HBM2e part at 500 W that the catalog does not have: transcribed, not simulated.
    "public-torchtitan": (2, 0.10, 0.15, 0.10, 0.15),
}
for name, (n, mape_target, worst_target, mape_reached, worst_reached) in TARGETS.items():
    g = report["groups"].get(name)
    if g is None or g["cases"] != n:
        failures.append(f"expected {n} simulated cases in group {name}")
        continue
    for what, value, target, reached in (("MAPE", g["mape"], mape_target, mape_reached),
                                         ("worst case", g["max_abs_error"], worst_target, worst_reached)):
        met = value <= target
        print(f"target {name} {what} <= {100 * target:.0f}%: {100 * value:.1f}% "
              f"{'met' if met else f'MISSED (enforced at the {100 * reached:.1f}% reached)'}")
        if value > max(target, reached):
            failures.append(f"{name} {what} {100 * value:.1f}% exceeds {100 * max(target, reached):.1f}%")

# FP8/BF16 speed-up of each dgxc model: the same recipe, model and GPU count in both precisions.
# Reached 21%: Llama 3.1 405B on GB200 misses by 19-21% (15-17% since the H100 round) since the training framework's host time is
# modelled (Grace launches bind its eager FP8 step, now within 5% of the measurement, while its BF16
# step stays 18% fast); every other pair is within 10%.
# Delayed scaling's amax all-reduces (2026-12-06) add host launches to the host-paced GB200 FP8 step
# (405B FP8 -0.2..-2.1% -> +1.9..+3.8%) while its BF16 step stays 16-17% fast: 14-16% -> 18-19%.
SPEEDUP_TARGET, SPEEDUP_REACHED = 0.10, 0.20
by_id = {c["id"]: c for c in report["cases"] if "error" in c}
pairs = 0
for cid, bf16 in sorted(by_id.items()):
    if not cid.startswith("dgxc-v25") or "-bf16-" not in cid:
        continue
    fp8 = by_id.get(cid.replace("-bf16-", "-fp8-"))
    if fp8 is None:
        continue
    pairs += 1
    measured = bf16["measured_step_s"] / fp8["measured_step_s"]
    predicted = bf16["predicted_step_s"] / fp8["predicted_step_s"]
    off = predicted / measured - 1
    print(f"speed-up {cid.replace('-bf16-', '-*-'):52s} measured {measured:.3f} predicted {predicted:.3f} "
          f"({100 * off:+.1f}%){'' if abs(off) <= SPEEDUP_TARGET else ' MISSED the 10% target'}")
    if abs(off) > max(SPEEDUP_TARGET, SPEEDUP_REACHED):
        failures.append(f"{cid}: predicted FP8/BF16 speed-up {predicted:.3f} is {100 * off:+.1f}% off {measured:.3f}")
if pairs < 15:
    failures.append(f"expected at least 15 dgxc BF16/FP8 pairs, found {pairs}")
# Every measured case ran, so a case whose predicted memory peak exceeds the usable HBM is an error of
# the memory model. Known: DeepSeek-V3 on 512 H100 at 80.27 of 79.87 GB (0.5% over) since its fp32
# gradient reduction was transcribed (2026-12-06); whether its container's Megatron-Core keeps the
# returned copies for the unpermute (probs = "unpermute", 470 MB per layer and micro-batch) is not stated.
# MPT-30B on 8 H100 at 8K (LLM Foundry, FULL_SHARD, activation checkpointing, micro-batch 1): 79.91 of
# 79.87 GB (0.05% over); the allocator's reserve is one global figure (docs/model.md section 6).
KNOWN_OVERFULL = {"dgxc-deepseek-v3-h100-512", "llmfoundry-mpt-30b-h100-8-s8192"}
for c in report["cases"]:
    if c.get("predicted_to_fit") is False:
        print(f"memory {c['id']}: predicted peak {c['memory_peak_bytes'] / 1e9:.2f} GB of "
              f"{c['usable_hbm_bytes'] / 1e9:.2f} GB usable, where the run fitted")
        if c["id"] not in KNOWN_OVERFULL:
            failures.append(f"{c['id']}: the memory model does not fit a run that ran")
if report["mape"] != {k: g["mape"] for k, g in report["groups"].items()}:
    failures.append("`mape` does not match the per-group summaries")
# The golden outputs (tests/scripts/golden): every case's predicted step time exactly as before, unless
# a commit moved it on purpose and updated tests/golden/outputs.json. Needs the source folder.
if len(sys.argv) > 2:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden"))
    import check_golden
    with open(os.path.join(sys.argv[2], "tests", "golden", "outputs.json")) as f:
        golden = {k: v for k, v in json.load(f).items() if k.startswith("validate ")}
    changed = check_golden.compare(golden, check_golden.validation(binary, sys.argv[2], report))
    for c in changed:
        failures.append("golden output " + c)
    print(f"golden: {len(golden)} validation cases compared, {len(changed)} changed")
    shipped = os.path.join(sys.argv[2], "scenarios", "accuracy", "validated.toml")
    with open(accuracy) as f, open(shipped) as g:
        if f.read() != g.read():
            failures.append(f"{shipped} is not what this revision's validation gives: regenerate it with "
                            f"`stepsim validate scenarios/validation --write-accuracy {shipped}`")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
