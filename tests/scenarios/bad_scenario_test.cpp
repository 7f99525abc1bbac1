// Malformed and impossible scenarios: each must fail with the file position, the dotted key, what
// was expected and a hint, both from the library and from `stepsim check` (exit code 2).
#include <catch2/catch.hpp>

#include "scenarios/scenario.hpp"
#include "sim/error.hpp"
#include "tests/support/catalog.hpp"
#include "tests/support/temp_files.hpp"

using stepsim::UserError;
using stepsim::scen::Catalog;

namespace {

// A valid scenario; the line numbers in the cases below count from its first line.
//  1 [model]           5 nodes = 16          9 seq_len = 4096       13 [parallelism]
//  2 preset = ...      6 gpus_per_node = 8  10 global_batch = 512   14 tp = 8
//  3 [hardware]        7 [workload]         11 micro_batch = 1      15 pp = 2
//  4 gpu = "h100-sxm"  8 kind = "train"     12 recompute = "none"   16 dp = 8
const std::string kBase = R"([model]
preset = "llama-3.1-70b"
[hardware]
gpu = "h100-sxm"
nodes = 16
gpus_per_node = 8
[workload]
kind = "train"
seq_len = 4096
global_batch = 512
micro_batch = 1
recompute = "none"
[parallelism]
tp = 8
pp = 2
dp = 8
)";

/// kBase with the first occurrence of `from` replaced by `to`.
std::string with(const std::string& from, const std::string& to, const std::string& base = kBase) {
  std::string s = base;
  const auto pos = s.find(from);
  REQUIRE(pos != std::string::npos);
  s.replace(pos, from.size(), to);
  return s;
}

struct BadCase {
  std::string name;
  std::string toml;
  std::string where;                  ///< ":line:col: key:" (or ": key:" without a position)
  std::vector<std::string> contains;  ///< problem and hint fragments
};

std::vector<BadCase> bad_cases() {
  return {
      {"misspelt key",
       with("tp = 8", "tpp = 8"),
       ":14:1: parallelism.tpp:",
       {"unknown key `tpp` in [parallelism]", "did you mean `tp`?"}},
      {"quoted number",
       with("global_batch = 512", "global_batch = \"512\""),
       ":10:16: workload.global_batch:",
       {"expected an integer, got a string (\"512\")", "write it without quotes: global_batch = 512"}},
      {"fractional count",
       with("tp = 8", "tp = 2.5"),
       ":14:6: parallelism.tp:",
       {"expected a whole number, got 2.5"}},
      {"zero nodes",
       with("nodes = 16", "nodes = 0"),
       ":5:9: hardware.nodes:",
       {"must be between 1 and 16777216, got 0"}},
      {"efficiency above 1",
       kBase + "[hardware.efficiency]\nattention = 1.2\n",
       ":18:13: hardware.efficiency.attention:",
       {"must be in [0.01, 1], got 1.2", "a fraction of peak"}},
      {"negative NIC",
       with("gpus_per_node = 8", "gpus_per_node = 8\nnic_gbps = -400"),
       ":7:12: hardware.nic_gbps:",
       {"must be in [0.01, 1e+07], got -400"}},
      {"misspelt enum",
       with("\"none\"", "\"ful\""),
       ":12:13: workload.recompute:",
       {"unknown value \"ful\"; expected one of none, selective, full", "did you mean `full`?"}},
      {"unknown GPU",
       with("h100-sxm", "h100-sxn"),
       ":4:7: hardware.gpu:",
       {"unknown GPU `h100-sxn`", "did you mean `h100-sxm`?", "stepsim catalog gpus"}},
      {"unknown model",
       with("llama-3.1-70b", "llama-3.1-70"),
       ":2:10: model.preset:",
       {"unknown model `llama-3.1-70`", "did you mean `llama-3.1-70b`?"}},
      {"layout does not fill the cluster",
       with("dp = 8", "dp = 4"),
       ":16:6: parallelism.dp:",
       {"tp x pp x dp x cp = 8 x 2 x 4 x 1 = 64, but the cluster has 16 nodes x 8 = 128 GPUs",
        "set dp = 8, or omit dp to derive it"}},
      {"tp does not divide the KV heads",
       with("pp = 2\ndp = 8", "pp = 2\ndp = 4", with("tp = 8", "tp = 16")),
       ":14:6: parallelism.tp:",
       {"kv_heads = 8 is not divisible by tp = 16", "whole KV-head groups"}},
      {"layers do not split over stages",
       with("nodes = 16", "nodes = 12", with("pp = 2\ndp = 8", "pp = 3\ndp = 4")),
       ":15:6: parallelism.pp:",
       {"layers = 80 is not divisible by pp x virtual_stages = 3 x 1 = 3"}},
      {"batch does not split over ranks",
       with("global_batch = 512", "global_batch = 500"),
       ":10:16: workload.global_batch:",
       {"global_batch = 500 is not divisible by micro_batch x dp = 1 x 8 = 8",
        "whole number of micro-batches"}},
      {"virtual stages without a pipeline",
       with("pp = 2\ndp = 8", "pp = 1\ndp = 16\nvirtual_stages = 2"),
       ":17:18: parallelism.virtual_stages:",
       {"is 2 but pp = 1", "need pipeline parallelism"}},
      {"precision the GPU lacks",
       kBase + "[precision]\ncompute = \"fp4\"\n",
       ":18:11: precision.compute:",
       {"GPU `h100-sxm` has no fp4 tensor throughput", "set fp4_tflops in [hardware.gpu]"}},
      {"expert parallelism on a dense model",
       kBase + "ep = 2\n",
       ":17:6: parallelism.ep:",
       {"applies to mixture-of-experts models, but `llama-3.1-70b` has no experts"}},
      {"decode without context",
       with("kind = \"train\"\nseq_len = 4096\nglobal_batch = 512\nmicro_batch = 1\nrecompute = \"none\"",
            "kind = \"decode\"\nbatch = 8"),
       ":7:1: workload:",
       {"kind = \"decode\" needs `context`"}},
      {"training key in a decode workload",
       with("kind = \"train\"\nseq_len = 4096", "kind = \"decode\"\ncontext = 4096"),
       ":10:16: workload.global_batch:",
       {"does not apply to kind = \"decode\"", "prefill and decode use `batch`"}},
      {"misspelt table",
       with("[parallelism]", "[paralellism]"),
       ":13:2: paralellism:",
       {"unknown key `paralellism` in the top level", "did you mean `parallelism`?"}},
      {"key in the wrong table",
       with("micro_batch = 1", "micro_batch = 1\npp = 2"),
       ":12:1: workload.pp:",
       {"unknown key `pp` in [workload]", "`pp` belongs in [parallelism]"}},
      {"Megatron argument name",
       with("preset = \"llama-3.1-70b\"", "preset = \"llama-3.1-70b\"\nnum_layers = 80"),
       ":3:1: model.num_layers:",
       {"stepsim calls this `layers` in [model]"}},
      {"TOML syntax error", with("tp = 8", "tp = "), ":14:", {"invalid TOML"}},
      {"missing hardware table",
       with("[hardware]\ngpu = \"h100-sxm\"\nnodes = 16\ngpus_per_node = 8\n", ""),
       ":1:1: ",
       {"missing the [hardware] table"}},
      {"NVLink domain that is not a node multiple",
       with("nodes = 16", "nodes = 16\nnvlink_domain = 3"),
       ":6:17: hardware.nvlink_domain:",
       {"is 3, neither a divisor nor a multiple of gpus_per_node = 8"}},
      {"unknown place for the routing probabilities",
       kBase + "[moe]\nprobs = \"combine\"\n",
       ":18:9: moe.probs:",
       {"activation", "unpermute"}},
      {"unknown collective algorithm",
       kBase + "[collective]\nalgorithm = \"rings\"\n",
       ":18:13: collective.algorithm:",
       {"did you mean `ring`?"}},
      {"CollNet without in-network reduction",
       kBase + "[collective]\nalgorithm = \"collnet-direct\"\n",
       ":18:13: collective.algorithm:",
       {"CollNet needs switches that reduce in the network", "set fabric.sharp = true"}},
      {"CollNet Chain without in-network reduction",
       kBase + "[collective]\nalgorithm = \"collnet-chain\"\n",
       ":18:13: collective.algorithm:",
       {"CollNet needs switches that reduce in the network", "set fabric.sharp = true"}},
      {"NCCL's CollNet without in-network reduction",
       kBase + "[collective]\ncollnet = true\n",
       ":18:11: collective.collnet:",
       {"NCCL's CollNet runs only on switches that reduce in the network", "set fabric.sharp = true"}},
      {"PAT forced with NCCL's PAT turned off",
       kBase + "[collective]\nalgorithm = \"pat\"\npat = false\n",
       ":18:13: collective.algorithm:",
       {"PAT is forced, but pat = false turns NCCL's PAT off"}},
      {"average_in_collective that is not a boolean",
       with("dp = 8\n", "dp = 8\naverage_in_collective = \"avg\"\n"),
       ":17:25: parallelism.average_in_collective:",
       {"true or false"}},
      {"NVLS without NVLink SHARP",
       kBase + "[collective]\nalgorithm = \"nvls-tree\"\n",
       ":18:13: collective.algorithm:",
       {"NVLS needs the NVSwitches' in-switch reduction", "set hardware.nvls = true"}},
      {"switches on a rail-optimised fabric",
       kBase + "[fabric]\nswitches = [\"s\"]\n",
       ":18:12: fabric.switches:",
       {"applies only to kind = \"custom\""}},
      {"custom fabric with an unconnected GPU",
       with("nodes = 16\ngpus_per_node = 8", "gpus = 2", with("tp = 8\npp = 2\ndp = 8", "tp = 2")) +
           "[fabric]\nkind = \"custom\"\nswitches = [\"sw\"]\n[[fabric.link]]\na = \"gpu0\"\nb = "
           "\"sw\"\nbw_gb_s = 50\n",
       ":17:1: fabric.link:",
       {"gpu1 has no link", "every GPU needs at least one [[fabric.link]]"}},
      {"oversubscription below 1",
       kBase + "[fabric]\noversubscription = [1.0, 0.5]\n",
       ":18:26: fabric.oversubscription:",
       {"every element must be in [1, 1000], got 0.5", "1 = non-blocking"}},
      {"slow GPU outside the job",
       kBase + "[variability]\nslow_gpus = [{ rank = 128, factor = 1.1 }]\n",
       ":18:23: variability.slow_gpus[0].rank:",
       {"must be between 0 and 127, got 128"}},
      {"slow node without its factor",
       kBase + "[variability]\nslow_nodes = [{ node = 3 }]\n",
       ":18:15: variability.slow_nodes[0].factor:",
       {"each entry needs `factor`", "factor = 1.1"}},
      {"throttled GPUs without their slowdown",
       kBase + "[variability]\nthrottled_fraction = 0.01\n",
       ":18:22: variability.throttled_fraction:",
       {"throttled GPUs need their slowdown", "set throttled_factor"}},
      {"host stalls without a length",
       kBase + "[variability]\nhost_stalls_per_step = 0.5\n",
       ":18:24: variability.host_stalls_per_step:",
       {"stalls need a length", "set host_stall_ms"}},
      {"clock wander without its window",
       kBase + "[variability]\nclock_wander_cv = 0.02\n",
       ":18:19: variability.clock_wander_cv:",
       {"clock wander needs the time a GPU's speed holds", "set clock_wander_ms"}},
      {"a clock-wander window of zero",
       kBase + "[variability]\nclock_wander_cv = 0.02\nclock_wander_ms = 0\n",
       ":19:19: variability.clock_wander_ms:",
       {"milliseconds a GPU's speed holds"}},
      {"negative kernel jitter",
       kBase + "[variability]\nkernel_jitter_cv = -0.1\n",
       ":18:20: variability.kernel_jitter_cv:",
       {"coefficient of variation"}},
      {"degraded link of an unknown kind",
       kBase + "[variability]\ndegraded_links = [{ rank = 3, link = \"pcie\", bandwidth = 0.5 }]\n",
       ":18:38: variability.degraded_links[0].link:",
       {"expected \"nic\" or \"nvlink\", got \"pcie\""}},
      {"NVLink down",
       kBase + "[variability]\ndegraded_links = [{ rank = 3, link = \"nvlink\", bandwidth = 0 }]\n",
       ":18:60: variability.degraded_links[0].bandwidth:",
       {"an NVLink down is not modelled", "bandwidth = 0.25"}},
      {"degraded link without its bandwidth",
       kBase + "[variability]\ndegraded_links = [{ rank = 3, link = \"nic\" }]\n",
       ":18:19: variability.degraded_links[0].bandwidth:",
       {"each entry needs `bandwidth`"}},
      {"degraded switch of an unknown tier",
       kBase + "[variability]\ndegraded_switches = [{ tier = \"root\", index = 0, bandwidth = 0 }]\n",
       ":18:31: variability.degraded_switches[0].tier:",
       {"expected \"leaf\", \"spine\" or \"core\", got \"root\""}},
      {"degraded switch without its index",
       kBase + "[variability]\ndegraded_switches = [{ tier = \"spine\", bandwidth = 0 }]\n",
       ":18:22: variability.degraded_switches[0].index:",
       {"each entry needs `index`"}},
      {"unknown variability key",
       kBase + "[variability]\njitter = 0.1\n",
       ":18:1: variability.jitter:",
       {"unknown key"}},
      {"unknown optimizer",
       kBase + "[precision]\noptimizer = \"adamw\"\n",
       ":18:13: precision.optimizer:",
       {"unknown value \"adamw\"", "did you mean `adam`?"}},
      {"dimension listed twice in order",
       kBase + "order = [\"tp\", \"tp\", \"pp\", \"dp\"]\n",
       ":17:9: parallelism.order:",
       {"lists \"tp\" twice"}},
      {"notebook formulas without inputs",
       kBase + "[estimate]\nformulas = \"notebook\"\n",
       ":18:12: estimate.formulas:",
       {"needs an [estimate.notebook] table"}},
      {"uneven stages that do not divide",
       with("pp = 2\ndp = 8", "pp = 4\ndp = 4\nfirst_stage_layers = 7"),
       ":17:22: parallelism.first_stage_layers:",
       {"layers - first_stage_layers - last_stage_layers = 80 - 7 - 0 = 73",
        "which the other 3 stages cannot share evenly"}},
      {"embedding and loss counted as layers that do not divide",
       with("pp = 2\ndp = 8", "pp = 4\ndp = 4\naccount_for_embedding_in_pipeline_split = true"),
       ":17:43: parallelism.account_for_embedding_in_pipeline_split:",
       {"layers + embedding = 81 does not divide over pp x virtual_stages = 4 x 1 = 4 model chunks"}},
      {"uneven ends and embedding accounting together",
       with("pp = 2\ndp = 8",
            "pp = 4\ndp = 4\nfirst_stage_layers = 18\naccount_for_loss_in_pipeline_split = true"),
       ":17:22: parallelism.first_stage_layers:",
       {"cannot be combined with account_for_embedding/loss_in_pipeline_split"}},
      {"TP communication overlap without sequence parallelism",
       with("pp = 2\ndp = 8", "pp = 2\ndp = 8\ntp_comm_overlap = true"),
       ":17:19: parallelism.tp_comm_overlap:",
       {"sequence_parallel is off", "set sequence_parallel = true"}},
      {"userbuffers' per-GEMM configuration without userbuffers",
       with("dp = 8", "dp = 8\nsequence_parallel = true") +
           "[parallelism.tp_overlap.proj_fprop]\nnum_sm = 8\n",
       ":18:1: parallelism.tp_overlap:",
       {"tp_comm_overlap is not userbuffers", "set tp_comm_overlap = true"}},
      {"a userbuffers method Transformer Engine refuses for the GEMM",
       with("dp = 8", "dp = 8\nsequence_parallel = true\ntp_comm_overlap = true") +
           "[parallelism.tp_overlap.qkv_fprop]\nmethod = \"pipeline\"\n",
       ":20:10: parallelism.tp_overlap.qkv_fprop.method:",
       {"does not run qkv_fprop as pipeline", "an all-gather's GEMM takes ring_exchange"}},
      {"userbuffers kernels holding every SM",
       with("dp = 8", "dp = 8\nsequence_parallel = true\ntp_comm_overlap = true") +
           "[parallelism.tp_overlap.fc2_fprop]\nnum_sm = 132\n",
       ":20:10: parallelism.tp_overlap.fc2_fprop.num_sm:",
       {"132 SMs leave none of the 132 of `h100-sxm` for the GEMM"}},
      {"userbuffers' atomic GEMM",
       with("dp = 8", "dp = 8\nsequence_parallel = true\ntp_comm_overlap = true") +
           "[parallelism.tp_overlap.fc2_fprop]\natomic_gemm = true\n",
       ":20:15: parallelism.tp_overlap.fc2_fprop.atomic_gemm:",
       {"is not modelled", "set atomic_gemm = false"}},
      {"a userbuffers switch written as 2",
       with("dp = 8", "dp = 8\nsequence_parallel = true\ntp_comm_overlap = true") +
           "[parallelism.tp_overlap.fc2_fprop]\nset_sm_margin = 2\n",
       ":20:17: parallelism.tp_overlap.fc2_fprop.set_sm_margin:",
       {"expected true / false (or 1 / 0), got 2"}},
      {"unknown Transformer Engine defaults",
       with("dp = 8",
            "dp = 8\nsequence_parallel = true\ntp_comm_overlap = true\ntp_overlap_defaults = \"te3\""),
       ":19:23: parallelism.tp_overlap_defaults:",
       {"unknown value \"te3\"; expected one of te2, te1"}},
      {"an unknown named userbuffers configuration",
       with("dp = 8",
            "dp = 8\nsequence_parallel = true\ntp_comm_overlap = true\ntp_overlap_config = "
            "\"userbuffers_bf16_h100_h8192_tp4_mbs1_seqlen4096\""),
       ":19:21: parallelism.tp_overlap_config:",
       {"unknown userbuffers configuration `userbuffers_bf16_h100_h8192_tp4_mbs1_seqlen4096`",
        "did you mean `userbuffers_bf16_h100_h8192_tp4_mbs1_seqlen8192`?", "stepsim catalog tp-overlap"}},
      {"a named userbuffers configuration beside tp_overlap_defaults",
       with("dp = 8",
            "dp = 8\nsequence_parallel = true\ntp_comm_overlap = true\ntp_overlap_defaults = \"te1\"\n"
            "tp_overlap_config = \"userbuffers_bf16_h100_h8192_tp4_mbs1_seqlen8192\""),
       ":20:21: parallelism.tp_overlap_config:",
       {"tp_overlap_defaults has nothing to set", "remove tp_overlap_defaults"}},
      {"expert-parallel overlap on a dense model",
       with("pp = 2\ndp = 8", "pp = 2\ndp = 8\nep_overlap = true"),
       ":17:14: parallelism.ep_overlap:",
       {"overlaps expert-parallel all-to-alls, but this job has none", "MoE model with parallelism.ep > 1"}},
      {"two-micro-batch overlap of an inference batch over pipeline stages",
       with("kind = \"train\"\nseq_len = 4096\nglobal_batch = 512\nmicro_batch = 1\nrecompute = \"none\"",
            "kind = \"decode\"\ncontext = 4096\nbatch = 8",
            with("pp = 2\ndp = 8", "pp = 2\ndp = 8\nep = 8\nep_overlap = true",
                 with("\"llama-3.1-70b\"", "\"mixtral-8x7b\""))),
       ":16:14: parallelism.ep_overlap:",
       {"on one pipeline stage only (pp = 2)", "set pp = 1"}},
      {"overlapped backward-forward pairs on a plain 1F1B pipeline",  // Megatron-Core pairs them only
                                                                      // interleaved
       with("pp = 2\ndp = 8", "pp = 2\ndp = 8\nep = 8\nep_overlap = true",
            with("\"llama-3.1-70b\"", "\"mixtral-8x7b\"")),
       ":18:14: parallelism.ep_overlap:",
       {"only the interleaved schedule", "virtual_stages >= 2", "schedule = \"dualpipe\""}},
      {"FP8 dispatch without FP8 linear layers",  // an MoE model (MoE with TP needs sequence parallelism)
       with("tp = 8", "tp = 8\nsequence_parallel = true", with("\"llama-3.1-70b\"", "\"mixtral-8x7b\"")) +
           "[moe]\nfp8_dispatch = true\n",
       ":19:16: moe.fp8_dispatch:",
       {"the linear layers are not FP8", "precision.compute = \"fp8\""}},
      {"EP communication SMs named by an unknown library",
       with("tp = 8", "tp = 8\nsequence_parallel = true", with("\"llama-3.1-70b\"", "\"mixtral-8x7b\"")) +
           "[moe]\nep_comm_sms = \"deepep-v3\"\n",
       ":19:15: moe.ep_comm_sms:",
       {"expected a count of SMs or \"deepep-v2\"", "DeepEP V1's default"}},
      {"EP communication SMs without expert parallelism",
       with("\"llama-3.1-70b\"", "\"mixtral-8x7b\"") + "[moe]\nep_comm_sms = 20\n",
       ":18:15: moe.ep_comm_sms:",
       {"applies to the expert-parallel all-to-alls, but ep = 1", "set parallelism.ep > 1"}},
      {"EP communication holding every SM",
       with("tp = 8", "tp = 8\nsequence_parallel = true\nep = 8",
            with("\"llama-3.1-70b\"", "\"mixtral-8x7b\"")) +
           "[moe]\nep_comm_sms = 132\n",
       ":20:15: moe.ep_comm_sms:",
       {"132 SMs leave none of the 132 of `h100-sxm` for compute"}},
      {"context-parallel method without context parallelism",
       with("pp = 2\ndp = 8", "pp = 2\ndp = 8\ncp_comm = \"a2a\""),
       ":17:11: parallelism.cp_comm:",
       {"applies to context parallelism, but cp = 1", "set cp > 1"}},
      {"all-to-all context parallelism over more ranks than the heads split into",
       with("pp = 2\ndp = 8", "pp = 1\ndp = 4\ncp = 4\ncp_comm = \"a2a\""),
       ":18:11: parallelism.cp_comm:",
       {"64 query and 8 key/value heads do not divide by tp x cp = 32", "\"all_gather\""}},
      {"unknown context-parallel method",
       with("pp = 2\ndp = 8", "pp = 1\ndp = 4\ncp = 4\ncp_comm = \"ring\""),
       ":18:11: parallelism.cp_comm:",
       {"p2p", "all_gather", "a2a"}},
      {"FSDP option without sharded weights",
       with("pp = 2\ndp = 8", "pp = 2\ndp = 8\nshard_group = 4"),
       ":17:15: parallelism.shard_group:",
       {"applies to sharded weights (ZeRO-3 / FSDP), but zero_stage = 0"}},
      {"HSDP shard group that does not divide the replicas",
       with("pp = 2\ndp = 8", "pp = 2\ndp = 8\nfsdp = \"hybrid_shard\"\nshard_group = 3"),
       ":18:15: parallelism.shard_group:",
       {"does not divide the dp x cp = 8 ranks"}},
      {"sequence beyond learned positions",
       with("llama-3.1-70b", "gpt3-175b"),
       ":9:11: workload.seq_len:",
       {"4096 tokens exceed the model's 2048 learned positions"}},
      {"missing catalog file",
       "catalog = [\"nope.toml\"]\n" + kBase,
       ":1:11: catalog:",
       {"catalog file `nope.toml` not found"}},
      {"MoE key on a dense model",
       with("preset = \"llama-3.1-70b\"", "preset = \"llama-3.1-70b\"\ntop_k = 2"),
       ":3:9: model.top_k:",
       {"is a mixture-of-experts key, but the model has no experts", "set experts = N"}},
      {"GPU table without a preset",
       with("gpu = \"h100-sxm\"\nnodes = 16\ngpus_per_node = 8", "nodes = 16\n[hardware.gpu]\nhbm_gb = 96"),
       ":5:1: hardware.gpu:",
       {"missing `preset`", "e.g. preset = \"h100-sxm\""}},
      {"table defined twice",
       kBase + "[hardware]\nnvls = true\n",
       ":17:",
       {"invalid TOML", "each table may appear once"}},
      {"count beyond int range",
       with("global_batch = 512", "global_batch = 5000000000"),
       ":10:16: workload.global_batch:",
       {"must be at most 2147483647, got 5e+09"}},
      {"misspelt recompute module",
       with("recompute = \"none\"", "recompute = \"selective\"\nrecompute_modules = [\"layernrom\"]"),
       ":13:21: workload.recompute_modules:",
       {"unknown module \"layernrom\"", "did you mean `layernorm`?"}},
      {"recompute module not modelled",
       with("recompute = \"none\"", "recompute = \"selective\"\nrecompute_modules = [\"mlp\"]"),
       ":13:21: workload.recompute_modules:",
       {"module \"mlp\" is not modelled", "recompute = \"full\""}},
      {"torchtitan's per-op policy listed with other modules",
       with("recompute = \"none\"",
            "recompute = \"selective\"\nrecompute_modules = [\"alternate_mm\", \"core_attn\"]"),
       ":13:21: workload.recompute_modules:",
       {"alternate_mm is torchtitan's whole per-op policy and is listed alone",
        "recompute_modules = [\"alternate_mm\"]"}},
      {"recompute modules without selective recomputation",
       with("recompute = \"none\"", "recompute = \"none\"\nrecompute_modules = [\"layernorm\"]"),
       ":13:21: workload.recompute_modules:",
       {"applies only with recompute = \"selective\" (recompute is \"none\")",
        "set recompute = \"selective\""}},
      {"MLA recompute module on a standard-attention model",
       with("recompute = \"none\"", "recompute = \"selective\"\nrecompute_modules = [\"mla_up_proj\"]"),
       ":13:21: workload.recompute_modules:",
       {"lists mla_up_proj, but the model's attention is not MLA"}},
      {"a retired launch key",
       with("gpu = \"h100-sxm\"", "gpu = { preset = \"h100-sxm\", graph_launch_us = 0 }"),
       ":4:48: hardware.gpu.graph_launch_us:",
       {"launch costs are split into the GPU's and the host's now", "kernel_gap_us"}},
      {"a retired GEMM efficiency key",
       kBase + "[hardware.efficiency]\nlarge_gemm = 0.8\n",
       ":18:14: hardware.efficiency.large_gemm:",
       {"GEMM efficiency is a curve over M, N and K now", "gemm_bf16 = {"}},
      {"a negative attention shape term",
       kBase + "[hardware.efficiency]\nattention_seq_half = -380\n",
       ":18:22: hardware.efficiency.attention_seq_half:",
       {"keys per query row at which attention runs at half its figure, e.g. 380; 0 = no term"}},
      {"an FP8 recipe on 16-bit linears",
       with("recompute = \"none\"", "recompute = \"none\"\n[precision]\nrecipe = \"delayed\""),
       ":14:10: precision.recipe:",
       {"is a recipe for FP8 or FP4 linear layers", "compute = \"fp8\""}},
      {"MXFP8 on Hopper",
       with("recompute = \"none\"",
            "recompute = \"none\"\n[precision]\ncompute = \"fp8\"\nrecipe = \"mxfp8\""),
       ":15:10: precision.recipe:",
       {"MXFP8 needs Blackwell tensor cores", "use delayed, tensorwise or blockwise"}},
      {"gpus and nodes disagree",
       with("nodes = 16", "nodes = 16\ngpus = 100"),
       ":6:8: hardware.gpus:",
       {"is 100 but nodes x gpus_per_node = 16 x 8 = 128"}},
      // [reliability] (stepsim goodput): line 17 is the table, 18 its key.
      {"misspelt reliability key",
       kBase + "[reliability]\ngpu_mtbf_hour = 5000\n",
       ":18:1: reliability.gpu_mtbf_hour:",
       {"unknown key `gpu_mtbf_hour` in [reliability]", "did you mean `gpu_mtbf_hours`?"}},
      {"GPU MTBF of zero",
       kBase + "[reliability]\ngpu_mtbf_hours = 0\n",
       ":18:18: reliability.gpu_mtbf_hours:",
       {"must be greater than 0, got 0", "hours between failures of one component"}},
      {"negative node MTBF",
       kBase + "[reliability]\nnode_mtbf_hours = -5\n",
       ":18:19: reliability.node_mtbf_hours:",
       {"must be greater than 0, got -5", "hours between failures of one component"}},
      {"NIC MTBF as text",
       kBase + "[reliability]\nnic_mtbf_hours = \"a lot\"\n",
       ":18:18: reliability.nic_mtbf_hours:",
       {"expected a number, got a string"}},
      {"switch MTBF of zero",
       kBase + "[reliability]\nswitch_mtbf_hours = 0.0\n",
       ":18:21: reliability.switch_mtbf_hours:",
       {"must be greater than 0", "hours between failures of one component"}},
      {"no storage write bandwidth",
       kBase + "[reliability]\nstorage_write_gb_s = 0\n",
       ":18:22: reliability.storage_write_gb_s:",
       {"must be greater than 0, got 0", "aggregate storage bandwidth in GB/s"}},
      {"negative storage read bandwidth",
       kBase + "[reliability]\nstorage_read_gb_s = -1\n",
       ":18:21: reliability.storage_read_gb_s:",
       {"must be greater than 0, got -1", "aggregate storage bandwidth in GB/s"}},
      {"misspelt checkpoint mode",
       kBase + "[reliability]\ncheckpoint_mode = \"asynch\"\n",
       ":18:19: reliability.checkpoint_mode:",
       {"did you mean `async`?"}},
      {"checkpoint interval of zero",
       kBase + "[reliability]\ncheckpoint_interval_steps = 0\n",
       ":18:29: reliability.checkpoint_interval_steps:",
       {"must be at least 1, got 0"}},
      {"fractional checkpoint interval",
       kBase + "[reliability]\ncheckpoint_interval_steps = 2.5\n",
       ":18:29: reliability.checkpoint_interval_steps:",
       {"expected a whole number, got 2.5"}},
      {"negative restart time",
       kBase + "[reliability]\nrestart_s = -1\n",
       ":18:13: reliability.restart_s:",
       {"must be at least 0, got -1", "seconds from a failure to running again"}},
      {"asynchronous checkpoint without PCIe",
       with("gpu = \"h100-sxm\"", "gpu = { preset = \"h100-sxm\", pcie_gb_s = 0 }") +
           "[reliability]\ncheckpoint_mode = \"async\"\n",
       ":18:19: reliability.checkpoint_mode:",
       {"copies the model state to host memory over PCIe", "set hardware.gpu.pcie_gb_s"}},
      {"reliability of an inference step",
       with("kind = \"train\"", "kind = \"prefill\"") + "[reliability]\nrestart_s = 60\n",
       ":17:1: reliability:",
       {"describes failures of a training run", "set workload.kind = \"train\""}},
  };
}

}  // namespace

TEST_CASE("malformed and impossible scenarios fail with location, key and hint") {
  stepsim::test::TempDir dir;
  for (const BadCase& c : bad_cases()) {
    SECTION(c.name) {
      const auto path = dir.write("bad.toml", c.toml);
      std::string message = "no error";
      try {
        (void)stepsim::scen::load_scenario(path, stepsim::test::builtin_catalog());
      } catch (const UserError& e) {
        message = e.what();
      }
      INFO(message);
      CHECK(message.rfind(path.string() + c.where, 0) == 0);
      for (const auto& fragment : c.contains) CHECK_THAT(message, Catch::Contains(fragment));
    }
  }
}

TEST_CASE("stepsim check reports the same errors with exit code 2") {
  stepsim::test::TempDir dir;
  const auto cases = bad_cases();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const BadCase& c = cases[i];
    INFO(c.name);
    const auto path = dir.write("bad" + std::to_string(i) + ".toml", c.toml);
    const auto r = stepsim::test::run_stepsim("check '" + path.string() + "'");
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.rfind("error: " + path.string() + c.where, 0) == 0);
    CHECK_THAT(r.err, Catch::Contains(c.contains.front()));
  }
}

TEST_CASE("every base case is valid, so each failure above is the edit's doing") {
  stepsim::test::TempDir dir;
  const auto s =
      stepsim::scen::load_scenario(dir.write("good.toml", kBase), stepsim::test::builtin_catalog());
  CHECK(s.job.parallel.world() == 128);
  const auto r = stepsim::test::run_stepsim("check '" + (dir.path() / "good.toml").string() + "'");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("TP 8 x PP 2 x DP 8 x CP 1"));
}

TEST_CASE("userbuffers' per-GEMM tables as NeMo writes them: TE 1.x defaults, 0 / 1 switches, overrides") {
  // tp_overlap_defaults = "te1": the GEMMs not listed keep TE 1.x's defaults (16 SMs, no margin
  // for pipeline and bulk); fc2_fprop's table sets 8 SMs and the margin (NeMo 1 writes 1), and
  // cga_size is taken without effect; qkv_wgrad takes 24 SMs.
  stepsim::test::TempDir dir;
  const std::string toml =
      with("dp = 8",
           "dp = 8\nsequence_parallel = true\ntp_comm_overlap = true\ntp_overlap_defaults = \"te1\"") +
      "[parallelism.tp_overlap.fc2_fprop]\nnum_sm = 8\nset_sm_margin = 1\ncga_size = 2\nnum_splits = 2\n"
      "[parallelism.tp_overlap.qkv_wgrad]\nnum_sm = 24\n";
  const auto s = stepsim::scen::load_scenario(dir.write("ub.toml", toml), stepsim::test::builtin_catalog());
  const auto& ub = s.job.parallel.ub_overlap;
  using stepsim::work::UbGemm, stepsim::work::UbMethod;
  const auto& fc2 = ub[static_cast<std::size_t>(UbGemm::fc2_fprop)];
  CHECK(fc2.method == UbMethod::pipeline);
  CHECK(fc2.num_sm == 8);
  CHECK(fc2.set_sm_margin);
  CHECK(fc2.num_splits == 2);
  const auto& proj = ub[static_cast<std::size_t>(UbGemm::proj_fprop)];
  CHECK(proj.num_sm == 16);
  CHECK_FALSE(proj.set_sm_margin);
  CHECK(ub[static_cast<std::size_t>(UbGemm::qkv_wgrad)].num_sm == 24);
  CHECK(ub[static_cast<std::size_t>(UbGemm::qkv_wgrad)].method == UbMethod::bulk);
  CHECK(ub[static_cast<std::size_t>(UbGemm::qkv_fprop)].method == UbMethod::ring_exchange);
  // Without tp_overlap_defaults, TE 2.x's: the pipelined and bulk GEMMs leave their 16 SMs.
  const auto te2 = stepsim::scen::load_scenario(
      dir.write("te2.toml", with("dp = 8", "dp = 8\nsequence_parallel = true\ntp_comm_overlap = true")),
      stepsim::test::builtin_catalog());
  CHECK(te2.job.parallel.ub_overlap[static_cast<std::size_t>(UbGemm::proj_fprop)].set_sm_margin);
  CHECK(te2.job.parallel.ub_overlap[static_cast<std::size_t>(UbGemm::fc1_dgrad)].set_sm_margin);
  CHECK_FALSE(te2.job.parallel.ub_overlap[static_cast<std::size_t>(UbGemm::fc1_fprop)].set_sm_margin);
}

TEST_CASE("a named userbuffers configuration from the catalog, changed by a table on top") {
  // NeMo's userbuffers_bf16_h100_h8192_tp4_mbs1_seqlen8192 (scenarios/catalog/tp_overlap.toml): proj_fprop
  // pipelined on 24 SMs with the margin, qkv_wgrad in bulk on 24; the table changes fc2_fprop's SMs only.
  stepsim::test::TempDir dir;
  const std::string toml = with("dp = 8",
                                "dp = 8\nsequence_parallel = true\ntp_comm_overlap = true\n"
                                "tp_overlap_config = \"userbuffers_bf16_h100_h8192_tp4_mbs1_seqlen8192\"") +
                           "[parallelism.tp_overlap.fc2_fprop]\nnum_sm = 12\n";
  const auto s =
      stepsim::scen::load_scenario(dir.write("preset.toml", toml), stepsim::test::builtin_catalog());
  using stepsim::work::UbGemm, stepsim::work::UbMethod;
  const auto at = [&](UbGemm g) { return s.job.parallel.ub_overlap[static_cast<std::size_t>(g)]; };
  CHECK(at(UbGemm::proj_fprop).method == UbMethod::pipeline);
  CHECK(at(UbGemm::proj_fprop).num_sm == 24);
  CHECK(at(UbGemm::proj_fprop).set_sm_margin);
  CHECK(at(UbGemm::qkv_wgrad).num_sm == 24);
  CHECK_FALSE(at(UbGemm::qkv_wgrad).set_sm_margin);
  CHECK(at(UbGemm::fc1_dgrad).num_sm == 2);
  CHECK(at(UbGemm::fc2_fprop).num_sm == 12);   // the table's
  CHECK(at(UbGemm::fc2_fprop).set_sm_margin);  // the configuration's
}

TEST_CASE("userbuffers' SMs must leave the GPU some, from a named configuration or the defaults too") {
  // A GPU of 16 SMs: TE 2.x's default bulk and pipeline overlaps take 16, every SM. The defaults say
  // so at tp_comm_overlap; a named configuration (proj_fprop on 24) at tp_overlap_config.
  const auto small = stepsim::test::builtin_catalog().with_text("[gpu.h100-sxm]\nsms = 16\n", "small.toml");
  const std::string ub = with("dp = 8", "dp = 8\nsequence_parallel = true\ntp_comm_overlap = true");
  CHECK_THROWS_WITH(
      stepsim::scen::load_scenario_string(ub, "ub.toml", small),
      Catch::Contains("ub.toml:18:19: parallelism.tp_comm_overlap: qkv_dgrad's 16 SMs leave none of "
                      "the 16 of `h100-sxm` for the GEMM") &&
          Catch::Contains("[parallelism.tp_overlap.qkv_dgrad]"));
  const std::string named = ub + "\ntp_overlap_config = \"userbuffers_bf16_h100_h8192_tp4_mbs1_seqlen8192\"";
  CHECK_THROWS_WITH(
      stepsim::scen::load_scenario_string(named, "ub.toml", small),
      Catch::Contains("parallelism.tp_overlap_config: qkv_wgrad's 24 SMs leave none of the 16"));
}
