// Extracts the BF16 GEMM, context-attention and NCCL timings of NVIDIA's aiconfigurator
// (github.com/ai-dynamo/aiconfigurator, Apache-2.0) for the GPUs stepsim's Blackwell calibration compares,
// into aiconfigurator-gemm-bf16.csv (KIND gemm), aiconfigurator-attention-shape.csv (KIND attention-shape), aiconfigurator-gemm-bf16-sustained.csv (KIND
// gemm-sustained), aiconfigurator-gemm-fp8.csv (KIND gemm-fp8) or aiconfigurator-attention-bf16.csv (KIND
// attention), aiconfigurator-nccl.csv (KIND nccl) or aiconfigurator-gemm-decode.csv (KIND gemm-decode).
//
// aiconfigurator's collector (collector/trtllm/collect_gemm.py, helper.py benchmark_with_power) times a
// TensorRT-LLM Linear layer (bias-free, torch.randn operands, weights replicated past the L2 cache) in a
// CUDA graph: 3 warm-ups and 6 timed replays. The same harness and TensorRT-LLM version on every GPU, so
// the ratio of two GPUs' times for one shape is a property of the GPUs, not of the harness
// (tools/calibration/fit_gemm.py uses the ratios; docs/simulation.md section 6).
//
// gemm-sustained: the vLLM 0.22.0 tables, collected with the harness's power measurement on: each shape
// replays for about 1 s (helper.py benchmark_with_power: 0.3 s below 0.1 ms a replay, at most 3,000
// replays) and the mean board power is recorded; the GEMMs that fill the GPU run at 97-99% of the power
// limit, so these are times at the power limit, not bursts.
// gemm-fp8: TensorRT-LLM 1.3.0rc10's per-tensor FP8 Linear (cuBLASLt scaled GEMM) quantises its BF16 input
// dynamically inside the timing; the same harness times that quantisation alone for the same M x K
// (collector/trtllm/collect_computescale.py: the scale computation and the static cast), written beside
// each GEMM as _quant_ms so that the GEMM alone is the difference.
// GEMMs kept: M a multiple of 128 and at least 128, N and K at least 1,024 (training and expert GEMMs; the
// grid's M + 1 variants and decode-sized shapes are left out), shapes timed on every GPU.
// Attention kept (collector/trtllm/collect_attn.py: TensorRT-LLM's context FMHA, forward, causal): BF16
// queries and KV cache, head dim 128, no sliding window, at least 4,096 tokens and batch x heads at least
// 16 (a tensor-parallel layer's heads at micro-batch 1), timed on every GPU.
//
// nccl: aiconfigurator's NCCL tables (collector/nccl: all-gather, all-reduce, reduce-scatter and
// all-to-all on 2, 4 and 8 GPUs of one node, FP16 elements; message_size counts elements, so bytes =
// 2 x message_size: its all-reduce of 268,435,456 on 8 H200 takes 2.04 ms, an NVLS all-reduce of
// 512 MiB) for A100, H100, H200, B200 and GB200, into aiconfigurator-nccl.csv.
//
// Usage (needs node and the hyparquet readers, not needed by stepsim itself):
//   npm install --prefix /tmp/pq hyparquet hyparquet-compressors
//   NODE_PATH=/tmp/pq/node_modules node tools/calibration/aiconfigurator.mjs GIT_DIR COMMIT KIND [GPUS] > OUT.csv
// aiconfigurator-gemm-hopper-{bf16,fp8}.csv: KIND gemm / gemm-fp8 with GPUS h100,h200 (the H100 and
// the H200 in one harness: fit_gemm.py checks the catalog's "as the H200 (same die)").
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'

const require = createRequire(process.env.NODE_PATH ? process.env.NODE_PATH + '/' : import.meta.url)
const { parquetReadObjects } = await import(require.resolve('hyparquet'))
const { compressors } = await import(require.resolve('hyparquet-compressors'))

const [gitDir, commit, kind, gpuList] = process.argv.slice(2)
const root = 'aic-core/src/aiconfigurator_core/systems/data'
// GPUS (optional, comma-separated): the GPUs of the gemm, gemm-sustained, gemm-fp8 and attention
// tables; h200,b200,gb200 by default (the Blackwell ratios), h100,h200 for the Hopper check.
const dirs = { h100: 'h100_sxm', h200: 'h200_sxm', b200: 'b200_sxm', gb200: 'gb200' }
const gpus = Object.fromEntries((gpuList ?? 'h200,b200,gb200').split(',').map((g) => [g, dirs[g]]))
const version = 'trtllm/1.3.0rc10'
const gemmKey = (r) => {
  const [m, n, k] = [Number(r.m), Number(r.n), Number(r.k)]
  if (r.gemm_dtype !== 'bfloat16' || m < 128 || m % 128 !== 0 || n < 1024 || k < 1024) return null
  return `${m},${n},${k}`
}
const tables = {
  gemm: {
    file: 'gemm/' + version + '/gemm_perf.parquet',
    columns: 'm,n,k',
    what: 'BF16 TensorRT-LLM Linear (bias-free), CUDA-graph replays of random operands; times in ms',
    key: gemmKey,
  },
  'gemm-sustained': {
    file: 'gemm/vllm/0.22.0/gemm_perf.parquet',
    columns: 'm,n,k',
    what: 'BF16 vLLM 0.22.0 linear, about 1 s of CUDA-graph replays per shape (power measured); times in ms, mean board power in W',
    key: gemmKey,
    power: true,
  },
  attention: {
    file: 'attention/' + version + '/context_attention_perf.parquet',
    columns: 'batch,seq,heads,kv_heads',
    what: 'BF16 TensorRT-LLM context attention (forward, causal, head dim 128), CUDA-graph replays; times in ms',
    key: (r) => {
      const [b, s, h, kv] = [r.batch_size, r.isl, r.num_heads, r.num_key_value_heads].map(Number)
      if (r.attn_dtype !== 'bfloat16' || r.kv_cache_dtype !== 'bfloat16' || Number(r.head_dim) !== 128) return null
      if (Number(r.window_size) !== 0 || s < 4096 || b * h < 16) return null
      return `${b},${s},${h},${kv}`
    },
  },
}
const table = tables[kind]

// Keys "a,b,c" in numeric order, field by field.
const order = (a, b) => {
  const x = a.split(',').map(Number), y = b.split(',').map(Number)
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] - y[i]
  return 0
}

async function readTable(path) {
  const buf = execFileSync('git', ['--git-dir', gitDir, 'show', `${commit}:${path}`], { maxBuffer: 1 << 28 })
  const file = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength)
  return parquetReadObjects({ file, compressors })
}

if (kind === 'nccl') {
  const sets = { a100: ['a100_sxm', '2.27.3'], h100: ['h100_sxm', '2.29.2'], h200: ['h200_sxm', '2.29.2'],
    b200: ['b200_sxm', '2.29.2'], gb200: ['gb200', '2.29.2'] }
  console.log(`# aiconfigurator ${commit}, ${root}/{${Object.values(sets).map(([d, v]) => d + '/comm/nccl/' + v)}}/nccl_perf.parquet`)
  console.log('# NCCL collectives on GPUs of one node (nccl-tests sizes: bytes per rank), FP16; times in ms')
  console.log('gpu,nccl,op,gpus,bytes,ms')
  for (const [gpu, [dir, v]] of Object.entries(sets))
    for (const r of await readTable(`${root}/${dir}/comm/nccl/${v}/nccl_perf.parquet`))
      if (r.nccl_dtype === 'half' && Number(r.message_size) >= 131072)
        console.log(`${gpu},${v},${r.op_name},${Number(r.num_gpus)},${2 * Number(r.message_size)},${Number(r.latency).toPrecision(6)}`)
  process.exit(0)
}

// gemm-decode: BF16 linears at decode batch sizes (M = 1, 8, 16, 32 rows), every N x K of the grid, on
// weights of 16 MB and more (a layer's shard, not a launch), on A100, H100 and H200 from the three engines' tables (vLLM and SGLang run PyTorch's F.linear, cuBLAS;
// TensorRT-LLM its own Linear; the same engine version on every GPU where the tables have it: vLLM
// 0.14.0, SGLang 0.5.10, TensorRT-LLM 1.0.0 on the A100 and 1.3.0rc10 on the Hopper and Blackwell GPUs),
// CUDA-graph replays with the weights replicated past the L2 cache:
// the decode GEMM's HBM efficiency and fixed time per GPU (fit_kernels.py aiconfigurator_decode_fits).
if (kind === 'gemm-decode') {
  const sets = {
    a100: ['a100_sxm', ['trtllm/1.0.0', 'vllm/0.14.0', 'sglang/0.5.10']],
    h100: ['h100_sxm', ['trtllm/1.3.0rc10', 'vllm/0.14.0', 'sglang/0.5.10']],
    h200: ['h200_sxm', ['trtllm/1.3.0rc10', 'vllm/0.14.0', 'sglang/0.5.10']],
    // Blackwell: the engine versions also timed on the H200 (B200 has no vLLM 0.14.0 table).
    b200: ['b200_sxm', ['trtllm/1.3.0rc10', 'sglang/0.5.10']],
    gb200: ['gb200', ['trtllm/1.3.0rc10', 'vllm/0.14.0', 'sglang/0.5.10']],
  }
  console.log(`# aiconfigurator ${commit}, ${root}/{a100_sxm,h100_sxm,h200_sxm,b200_sxm,gb200}/gemm/{ENGINE/VERSION}/gemm_perf.parquet`)
  console.log('# BF16 linears at M = 1, 8, 16, 32 rows, weights of 16 MB and more, CUDA-graph replays of random operands, weights past the L2; times in ms')
  console.log('gpu,engine,m,n,k,ms')
  for (const [gpu, [dir, versions]] of Object.entries(sets))
    for (const v of versions) {
      const rows = []
      for (const r of await readTable(`${root}/${dir}/gemm/${v}/gemm_perf.parquet`)) {
        const [m, n, k] = [Number(r.m), Number(r.n), Number(r.k)]
        if (r.gemm_dtype === 'bfloat16' && [1, 8, 16, 32].includes(m) && 2 * n * k >= 16e6) rows.push([m, n, k, Number(r.latency)])
      }
      rows.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2])
      for (const [m, n, k, t] of rows) console.log(`${gpu},${v},${m},${n},${k},${t.toPrecision(6)}`)
    }
  process.exit(0)
}

// attention-shape: BF16 context attention (forward, causal, head dim 128, no window, BF16 KV cache) at
// every sequence length from 512 on, per GPU and engine, the median over the KV-head counts of one batch,
// sequence and head count: how the kernels' efficiency falls with short rows and few query tiles
// (fit_gemm.py attention_shape). The engines that ran on both the A100 and the H100 (vLLM 0.14.0 and
// SGLang 0.5.10: FlashAttention-2 on Ampere, FlashAttention-3 on Hopper), and TensorRT-LLM 1.3.0rc10 on
// the Hopper and Blackwell GPUs.
if (kind === 'attention-shape') {
  const sets = [
    ['a100', 'a100_sxm', 'vllm/0.14.0'], ['h100', 'h100_sxm', 'vllm/0.14.0'],
    ['a100', 'a100_sxm', 'sglang/0.5.10'], ['h100', 'h100_sxm', 'sglang/0.5.10'],
    ['h100', 'h100_sxm', 'trtllm/1.3.0rc10'], ['h200', 'h200_sxm', 'trtllm/1.3.0rc10'],
    ['b200', 'b200_sxm', 'trtllm/1.3.0rc10'], ['gb200', 'gb200', 'trtllm/1.3.0rc10'],
  ]
  console.log(`# aiconfigurator ${commit}, ${root}/{GPU}/attention/{ENGINE/VERSION}/context_attention_perf.parquet`)
  console.log('# BF16 context attention (forward, causal, head dim 128, no window, BF16 KV cache), CUDA-graph replays, median over KV-head counts; times in ms')
  console.log('gpu,engine,batch,seq,heads,ms')
  for (const [gpu, dir, v] of sets) {
    const times = {}
    for (const r of await readTable(`${root}/${dir}/attention/${v}/context_attention_perf.parquet`)) {
      const [b, s, h] = [r.batch_size, r.isl, r.num_heads].map(Number)
      if (r.attn_dtype !== 'bfloat16' || r.kv_cache_dtype !== 'bfloat16' || Number(r.head_dim) !== 128) continue
      if (Number(r.window_size ?? 0) !== 0 || s < 512) continue
      ;(times[`${b},${s},${h}`] ??= []).push(Number(r.latency))
    }
    const keys = Object.keys(times).sort(order)
    for (const k of keys) {
      const t = times[k].sort((x, y) => x - y)
      const m = t.length % 2 ? t[(t.length - 1) / 2] : (t[t.length / 2 - 1] + t[t.length / 2]) / 2
      console.log(`${gpu},${v},${k},${m.toPrecision(6)}`)
    }
  }
  process.exit(0)
}

if (kind === 'gemm-fp8') {
  const times = {}
  for (const [gpu, dir] of Object.entries(gpus)) {
    const quant = {}
    for (const t of ['computescale', 'scale_matrix'])
      for (const r of await readTable(`${root}/${dir}/quantize/${version}/${t}_perf.parquet`))
        if (r.quant_dtype === 'fp8') quant[`${r.m},${r.k}`] = (quant[`${r.m},${r.k}`] ?? 0) + Number(r.latency)
    for (const r of await readTable(`${root}/${dir}/gemm/${version}/gemm_perf.parquet`)) {
      const key = gemmKey({ ...r, gemm_dtype: r.gemm_dtype === 'fp8' ? 'bfloat16' : 'other' })
      const q = quant[`${r.m},${r.k}`]
      if (key === null || q === undefined) continue
      times[key] ??= {}
      times[key][gpu] = [Number(r.latency), q]
    }
  }
  console.log(`# aiconfigurator ${commit}, ${root}/{${Object.values(gpus)}}/{gemm,quantize}/${version}/`)
  console.log('# per-tensor FP8 TensorRT-LLM Linear with its dynamic input quantisation (_fp8_ms) and that quantisation alone (_quant_ms); ms')
  console.log(`m,n,k,${Object.keys(gpus).flatMap((g) => [g + '_fp8_ms', g + '_quant_ms']).join(',')}`)
  const keys = Object.keys(times).filter((k) => Object.keys(gpus).every((g) => g in times[k]))
  keys.sort(order)
  for (const k of keys)
    console.log(`${k},${Object.keys(gpus).flatMap((g) => times[k][g].map((v) => v.toPrecision(6))).join(',')}`)
  process.exit(0)
}

const times = {}
for (const [gpu, dir] of Object.entries(gpus)) {
  for (const r of await readTable(`${root}/${dir}/${table.file}`)) {
    const key = table.key(r)
    if (key === null) continue
    times[key] ??= {}
    times[key][gpu] = Number(r.latency)
    if (table.power) times[key][gpu + '_w'] = Number(r.power)
  }
}
console.log(`# aiconfigurator ${commit}, ${root}/{${Object.values(gpus)}}/${table.file}`)
console.log(`# ${table.what}`)
const cols = Object.keys(gpus).flatMap((g) => (table.power ? [g + '_ms', g + '_w'] : [g + '_ms']))
console.log(`${table.columns},${cols.join(',')}`)
const rows = Object.entries(times).filter(([, t]) => Object.keys(gpus).every((g) => g in t))
rows.sort(([a], [b]) => order(a, b))
const cell = (t, c) => (c.endsWith('_w') ? t[c.slice(0, -2) + '_w'].toFixed(0) : t[c.slice(0, -3)].toPrecision(6))
for (const [key, t] of rows) console.log(`${key},${cols.map((c) => cell(t, c)).join(',')}`)
