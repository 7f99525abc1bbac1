// Transformer Engine's attention backend for training (workloads/model/attention_backend.hpp).
#include <catch2/catch.hpp>

#include "workloads/model/attention_backend.hpp"

namespace attention_backend_tests {

namespace work = stepsim::work;
using stepsim::topo::GpuArch;
using work::HeadDims;
using work::SoftwareVersion;

TEST_CASE("a release is read as major.minor, its patch level ignored") {
  CHECK(work::parse_version("2.2") == SoftwareVersion{2, 2});
  CHECK(work::parse_version("2.10.1") == SoftwareVersion{2, 10});
  CHECK(work::parse_version("v1.13") == SoftwareVersion{1, 13});
  CHECK(work::parse_version("2.2.0.dev0") == SoftwareVersion{2, 2});
  CHECK(SoftwareVersion{2, 10} > SoftwareVersion{2, 9});  // numbers, not text
  for (const char* bad : {"", "2", "two", "2.", ".2", "2.x", "2-2", "0.0", "12345.1"}) {
    INFO(bad);
    CHECK_FALSE(work::parse_version(bad).has_value());
  }
}

TEST_CASE("head widths: MLA's query/key head is nope + rope wide, its value head v_head_dim") {
  work::ModelSpec mla;
  mla.attention = work::AttentionKind::mla;
  mla.mla.qk_nope_head_dim = 128;
  mla.mla.qk_rope_head_dim = 64;
  mla.mla.v_head_dim = 128;
  CHECK(work::attention_head_dims(mla).qk == 192);
  CHECK(work::attention_head_dims(mla).v == 128);
  work::ModelSpec gqa;
  gqa.hidden = 8192;
  gqa.heads = 64;  // head_dim not stated: hidden / heads
  CHECK(work::attention_head_dims(gqa).qk == 128);
  gqa.head_dim = 256;
  CHECK(work::attention_head_dims(gqa).v == 256);
}

TEST_CASE("TE 2.1 to 2.4 run MLA unfused on Blackwell, fused everywhere else") {
  const HeadDims mla{192, 128};
  const auto unfused = [](SoftwareVersion te, GpuArch arch, HeadDims d) {
    return work::te_training_attention_unfused(te, arch, d).has_value();
  };
  // fused_attn.cpp "special conditions for blackwell" (2.1 to 2.4): no cuDNN kernel above 128;
  // FlashAttention is off for unequal widths: nothing fused is left.
  for (SoftwareVersion te : {SoftwareVersion{2, 1}, SoftwareVersion{2, 2}, SoftwareVersion{2, 4}}) {
    INFO(te.str());
    CHECK(unfused(te, GpuArch::blackwell, mla));
  }
  const auto why = work::te_training_attention_unfused({2, 2}, GpuArch::blackwell, mla);
  REQUIRE(why.has_value());
  CHECK_THAT(why->why,
             Catch::Contains("Transformer Engine 2.2") && Catch::Contains("query/key 192, value 128"));
  // 2.5 replaced the rule (cuDNN 9.11 runs d_qk 192 / d_v 128 backward on Blackwell); 2.0 had not
  // added it; Hopper runs cuDNN's fused attention up to 256 in those releases.
  CHECK_FALSE(unfused({2, 5}, GpuArch::blackwell, mla));
  CHECK_FALSE(unfused({2, 0}, GpuArch::blackwell, mla));
  CHECK_FALSE(unfused({2, 2}, GpuArch::hopper, mla));
  // Heads of 128 stay fused; equal widths above 128 can take FlashAttention 2 on sm100.
  CHECK_FALSE(unfused({2, 2}, GpuArch::blackwell, {128, 128}));
  CHECK_FALSE(unfused({2, 2}, GpuArch::blackwell, {256, 256}));
}

}  // namespace attention_backend_tests
