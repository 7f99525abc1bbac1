#pragma once
// How scenario and catalog files spell enum values. One table per enum keeps reading and
// "expected one of ..." messages in step.

#include <array>

#include "scenarios/toml_reader.hpp"
#include "topology/cluster.hpp"
#include "topology/collectives.hpp"
#include "topology/gpu.hpp"
#include "workloads/model/job.hpp"
#include "workloads/model/model.hpp"
#include "workloads/reliability/reliability_spec.hpp"

namespace stepsim::scen::choices {

using work::Activation;
using work::AttentionKind;
using work::NormKind;
using work::PositionEmbedding;

inline constexpr std::array<Choice<Activation>, 3> kActivation{
    {{"gelu", Activation::gelu}, {"swiglu", Activation::swiglu}, {"relu", Activation::relu}}};
inline constexpr std::array<Choice<NormKind>, 2> kNorm{
    {{"layernorm", NormKind::layernorm}, {"rmsnorm", NormKind::rmsnorm}}};
inline constexpr std::array<Choice<PositionEmbedding>, 3> kPosition{{{"rope", PositionEmbedding::rope},
                                                                     {"learned", PositionEmbedding::learned},
                                                                     {"none", PositionEmbedding::none}}};
inline constexpr std::array<Choice<AttentionKind>, 2> kAttention{
    {{"standard", AttentionKind::standard}, {"mla", AttentionKind::mla}}};
inline constexpr std::array<Choice<work::AttentionWindowKind>, 2> kAttentionWindowKind{
    {{"sliding", work::AttentionWindowKind::sliding}, {"chunked", work::AttentionWindowKind::chunked}}};

inline constexpr std::array<Choice<work::WorkloadKind>, 5> kWorkloadKind{
    {{"train", work::WorkloadKind::train},
     {"prefill", work::WorkloadKind::prefill},
     {"decode", work::WorkloadKind::decode},
     {"generate", work::WorkloadKind::generate},
     {"serve", work::WorkloadKind::serve}}};
inline constexpr std::array<Choice<work::DecodeAttention>, 2> kDecodeAttention{
    {{"grouped", work::DecodeAttention::grouped}, {"per_query_head", work::DecodeAttention::per_query_head}}};
inline constexpr std::array<Choice<work::Recompute>, 3> kRecompute{{{"none", work::Recompute::none},
                                                                    {"selective", work::Recompute::selective},
                                                                    {"full", work::Recompute::full}}};
inline constexpr std::array<Choice<work::AttentionImpl>, 2> kAttentionImpl{
    {{"flash", work::AttentionImpl::flash}, {"unfused", work::AttentionImpl::unfused}}};
inline constexpr std::array<Choice<topo::AttentionKernel>, 5> kAttentionKernel{
    {{"cudnn", topo::AttentionKernel::cudnn},
     {"fa2", topo::AttentionKernel::fa2},
     {"fa3", topo::AttentionKernel::fa3},
     {"flex", topo::AttentionKernel::flex},
     {"triton", topo::AttentionKernel::triton}}};
inline constexpr std::array<Choice<work::Pointwise>, 2> kPointwise{
    {{"fused", work::Pointwise::fused}, {"eager", work::Pointwise::eager}}};
inline constexpr std::array<Choice<work::GradAccumulation>, 2> kGradAccumulation{
    {{"fused", work::GradAccumulation::fused}, {"separate", work::GradAccumulation::separate}}};
inline constexpr std::array<Choice<work::BiasGrad>, 2> kBiasGrad{
    {{"fused", work::BiasGrad::fused}, {"separate", work::BiasGrad::separate}}};
inline constexpr std::array<Choice<work::CrossEntropy>, 5> kCrossEntropy{
    {{"fused", work::CrossEntropy::fused},
     {"megatron", work::CrossEntropy::megatron},
     {"megatron_compiled", work::CrossEntropy::megatron_compiled},
     {"pytorch", work::CrossEntropy::pytorch},
     {"pytorch_bf16", work::CrossEntropy::pytorch_bf16}}};
inline constexpr std::array<Choice<work::CpComm>, 3> kCpComm{
    {{"p2p", work::CpComm::p2p}, {"all_gather", work::CpComm::all_gather}, {"a2a", work::CpComm::a2a}}};
inline constexpr std::array<Choice<work::P2pMode>, 3> kP2pMode{{{"overlapped", work::P2pMode::overlapped},
                                                                {"blocking", work::P2pMode::blocking},
                                                                {"lockstep", work::P2pMode::lockstep}}};
/// PyTorch FSDP's ShardingStrategy names (NO_SHARD is zero_stage = 0 with DDP).
enum class FsdpStrategy : std::uint8_t { full_shard, shard_grad_op, hybrid_shard, hybrid_shard_zero2 };
inline constexpr std::array<Choice<FsdpStrategy>, 4> kFsdpStrategy{
    {{"full_shard", FsdpStrategy::full_shard},
     {"shard_grad_op", FsdpStrategy::shard_grad_op},
     {"hybrid_shard", FsdpStrategy::hybrid_shard},
     {"hybrid_shard_zero2", FsdpStrategy::hybrid_shard_zero2}}};
inline constexpr std::array<Choice<work::UbMethod>, 3> kUbMethod{
    {{"ring_exchange", work::UbMethod::ring_exchange},
     {"pipeline", work::UbMethod::pipeline},
     {"bulk", work::UbMethod::bulk}}};
/// parallelism.tp_overlap_defaults: whose defaults the GEMMs not configured take (true: TE 1.x's).
inline constexpr std::array<Choice<bool>, 2> kUbDefaults{{{"te2", false}, {"te1", true}}};
inline constexpr std::array<Choice<work::TpCommOverlap>, 3> kTpCommOverlap{
    {{"off", work::TpCommOverlap::off},
     {"userbuffers", work::TpCommOverlap::userbuffers},
     {"async_tp", work::TpCommOverlap::async_tp}}};
inline constexpr std::array<Choice<work::PipelineSchedule>, 5> kSchedule{
    {{"gpipe", work::PipelineSchedule::gpipe},
     {"1f1b", work::PipelineSchedule::one_f_one_b},
     {"interleaved", work::PipelineSchedule::interleaved},
     {"dualpipe", work::PipelineSchedule::dualpipe},
     {"dualpipev", work::PipelineSchedule::dualpipev}}};
inline constexpr std::array<Choice<work::ParallelDim>, 5> kParallelDim{{{"tp", work::ParallelDim::tp},
                                                                        {"cp", work::ParallelDim::cp},
                                                                        {"ep", work::ParallelDim::ep},
                                                                        {"pp", work::ParallelDim::pp},
                                                                        {"dp", work::ParallelDim::dp}}};
inline constexpr std::array<Choice<topo::Precision>, 5> kPrecision{{{"fp32", topo::Precision::fp32},
                                                                    {"bf16", topo::Precision::bf16},
                                                                    {"fp16", topo::Precision::fp16},
                                                                    {"fp8", topo::Precision::fp8},
                                                                    {"fp4", topo::Precision::fp4}}};
inline constexpr std::array<Choice<work::LowPrecisionRecipe>, 5> kRecipe{
    {{"delayed", work::LowPrecisionRecipe::delayed},
     {"tensorwise", work::LowPrecisionRecipe::tensorwise},
     {"blockwise", work::LowPrecisionRecipe::blockwise},
     {"mxfp8", work::LowPrecisionRecipe::mxfp8},
     {"nvfp4", work::LowPrecisionRecipe::nvfp4}}};
inline constexpr std::array<Choice<topo::GpuArch>, 5> kGpuArch{{{"other", topo::GpuArch::other},
                                                                {"volta", topo::GpuArch::volta},
                                                                {"ampere", topo::GpuArch::ampere},
                                                                {"hopper", topo::GpuArch::hopper},
                                                                {"blackwell", topo::GpuArch::blackwell}}};
inline constexpr std::array<Choice<topo::CollectiveAlgorithm>, 9> kForcedAlgorithm{
    {{"auto", topo::CollectiveAlgorithm::automatic},
     {"ring", topo::CollectiveAlgorithm::ring},
     {"tree", topo::CollectiveAlgorithm::tree},
     {"nvls", topo::CollectiveAlgorithm::nvls},
     {"nvls-tree", topo::CollectiveAlgorithm::nvls_tree},
     {"collnet-direct", topo::CollectiveAlgorithm::collnet_direct},
     {"collnet-chain", topo::CollectiveAlgorithm::collnet_chain},
     {"pat", topo::CollectiveAlgorithm::pat},
     {"hierarchical", topo::CollectiveAlgorithm::hierarchical}}};
inline constexpr std::array<Choice<topo::CollectiveProtocol>, 4> kProtocol{
    {{"auto", topo::CollectiveProtocol::automatic},
     {"simple", topo::CollectiveProtocol::simple},
     {"ll128", topo::CollectiveProtocol::ll128},
     {"ll", topo::CollectiveProtocol::ll}}};
inline constexpr std::array<Choice<work::CheckpointMode>, 2> kCheckpointMode{
    {{"sync", work::CheckpointMode::sync}, {"async", work::CheckpointMode::async}}};
inline constexpr std::array<Choice<work::MoeDispatcher>, 2> kMoeDispatcher{
    {{"normal", work::MoeDispatcher::normal}, {"low_latency", work::MoeDispatcher::low_latency}}};
inline constexpr std::array<Choice<work::MoeRouting>, 2> kMoeRouting{
    {{"random", work::MoeRouting::random}, {"round_robin", work::MoeRouting::round_robin}}};
inline constexpr std::array<Choice<work::MoeProbs>, 2> kMoeProbs{
    {{"activation", work::MoeProbs::activation}, {"unpermute", work::MoeProbs::unpermute}}};
inline constexpr std::array<Choice<topo::FabricKind>, 3> kFabricKind{
    {{"rail-optimized", topo::FabricKind::rail_optimized},
     {"fat-tree", topo::FabricKind::fat_tree},
     {"custom", topo::FabricKind::custom}}};
inline constexpr std::array<Choice<work::EstimateFormulas>, 2> kFormulas{
    {{"stepsim", work::EstimateFormulas::stepsim}, {"notebook", work::EstimateFormulas::notebook}}};

/// Optimizer state bytes per parameter (beyond the working weights and gradients).
/// adam: fp32 master + m + v (4+4+4); adam-bf16-moments: fp32 master, bf16 m and v (DeepSeek-V3,
/// 4+2+2); adam-bf16: all three in bf16 (2+2+2); sgd-momentum: fp32 master + momentum; sgd: master.
inline constexpr std::array<Choice<double>, 5> kOptimizerBytes{
    {{"adam", 12.0}, {"adam-bf16-moments", 8.0}, {"adam-bf16", 6.0}, {"sgd-momentum", 8.0}, {"sgd", 4.0}}};

}  // namespace stepsim::scen::choices
