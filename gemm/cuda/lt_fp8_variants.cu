// lt_fp8_variants: which part of an FP8 cublasLtMatmul call makes cuBLASLt refuse it. Not part of
// railgauge: a probe built beside it, run by hand on a GPU node (docs/gemm.md, "Measured"):
//   build/bin/lt_fp8_variants [m n k]     (cuBLASLt's m, n, k; default 768 1024 512)
// The GEMM is railgauge's fp8_e4m3 nt point 1024×768×512 in cuBLASLt's terms: cuBLASLt A (k×m,
// transposed) and B (k×n) in 8F_E4M3, C and D in 16BF, compute and scale 32F, per-tensor scale
// pointers. It varies, one at a time and together: where the A-scale pointer lies (16-byte aligned
// or 4 bytes past it, as two floats in one buffer give), what C points at (its own buffer, D,
// cuBLASLt's A or B), the workspace (1 or 32 MiB), the stream (legacy 0 or a created one) and
// whether FAST_ACCUM = 0 is stated. Each line: the variant, how many of the heuristic's candidates
// ran, and the first refusal's status.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <cublasLt.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

namespace {

void check_cuda(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "lt_fp8_variants: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

void check_lt(cublasStatus_t s, const char *what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "lt_fp8_variants: %s: %s\n", what, cublasLtGetStatusName(s));
    std::exit(1);
  }
}

struct Buffers {
  void *a = nullptr, *b = nullptr, *c = nullptr, *d = nullptr, *scales = nullptr, *ws = nullptr;
};

enum class CPlace { own, d, a, b };
const char *name(CPlace p) {
  switch (p) {
  case CPlace::own:
    return "own";
  case CPlace::d:
    return "D";
  case CPlace::a:
    return "A";
  case CPlace::b:
    return "B";
  }
  return "?";
}

struct Variant {
  bool a_scale_offset_4_bytes;
  CPlace c;
  std::size_t workspace_bytes;
  bool own_stream;
  bool fast_accum_set_0; // CUBLASLT_MATMUL_DESC_FAST_ACCUM = 0 stated, as railgauge does
};

// Runs every candidate the heuristic offers for `v`; prints how many ran.
void try_variant(cublasLtHandle_t lt, const Buffers &buf, int m, int n, int k, const Variant &v) {
  cudaStream_t stream = nullptr;
  if (v.own_stream)
    check_cuda(cudaStreamCreate(&stream), "cudaStreamCreate");
  cublasLtMatmulDesc_t desc;
  check_lt(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "desc");
  const cublasOperation_t t = CUBLAS_OP_T, nt = CUBLAS_OP_N;
  check_lt(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t), "ta");
  check_lt(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &nt, sizeof nt), "tb");
  if (v.fast_accum_set_0) {
    const std::int8_t off = 0;
    check_lt(
        cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &off, sizeof off),
        "fast accum");
  }
  // Scales: 256 B apart when aligned; b at the base, a 4 bytes after it otherwise (railgauge's
  // two-float buffer before this probe).
  const auto *base = static_cast<const char *>(buf.scales);
  const void *b_scale = base;
  const void *a_scale = v.a_scale_offset_4_bytes ? base + 4 : base + 256;
  check_lt(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &a_scale,
                                          sizeof a_scale),
           "a scale");
  check_lt(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &b_scale,
                                          sizeof b_scale),
           "b scale");
  cublasLtMatrixLayout_t la, lb, lc;
  check_lt(cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, k, m, k), "layout a");
  check_lt(cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, k, n, k), "layout b");
  check_lt(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, m, n, m), "layout c");
  cublasLtMatmulPreference_t pref;
  check_lt(cublasLtMatmulPreferenceCreate(&pref), "pref");
  check_lt(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                &v.workspace_bytes, sizeof v.workspace_bytes),
           "pref ws");
  std::vector<cublasLtMatmulHeuristicResult_t> results(8);
  int found = 0;
  const cublasStatus_t h =
      cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, lc, pref, 8, results.data(), &found);
  const void *c = v.c == CPlace::own ? buf.c
                  : v.c == CPlace::d ? buf.d
                  : v.c == CPlace::a ? buf.a
                                     : buf.b;
  const float alpha = 1.0f, beta = 0.0f;
  int ran = 0;
  std::string first_refusal = "-";
  for (int i = 0; h == CUBLAS_STATUS_SUCCESS && i < found; ++i) {
    const cublasStatus_t s =
        cublasLtMatmul(lt, desc, &alpha, buf.a, la, buf.b, lb, &beta, c, lc, buf.d, lc,
                       &results[i].algo, buf.ws, v.workspace_bytes, stream);
    if (s == CUBLAS_STATUS_SUCCESS)
      ++ran;
    else if (first_refusal == "-")
      first_refusal = cublasLtGetStatusName(s);
  }
  check_cuda(cudaStreamSynchronize(stream), "sync");
  std::printf("a_scale=%-9s C=%-3s workspace=%2zu MiB stream=%-6s fast_accum=%-5s heuristic=%s "
              "offered=%d ran=%d "
              "first_refusal=%s\n",
              v.a_scale_offset_4_bytes ? "+4 bytes" : "aligned", name(v.c), v.workspace_bytes >> 20,
              v.own_stream ? "own" : "legacy", v.fast_accum_set_0 ? "0" : "unset",
              cublasLtGetStatusName(h), found, ran, first_refusal.c_str());
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(lc);
  cublasLtMatmulDescDestroy(desc);
  if (stream)
    check_cuda(cudaStreamDestroy(stream), "cudaStreamDestroy");
}

} // namespace

int main(int argc, char **argv) {
  const int m = argc > 3 ? std::atoi(argv[1]) : 768;
  const int n = argc > 3 ? std::atoi(argv[2]) : 1024;
  const int k = argc > 3 ? std::atoi(argv[3]) : 512;
  std::printf("lt_fp8_variants: cuBLASLt %zu, fp8_e4m3 m=%d n=%d k=%d\n", cublasLtGetVersion(), m,
              n, k);
  Buffers buf;
  const std::size_t ab_bytes = std::size_t(k) * (m > n ? m : n);
  const std::size_t cd_bytes = std::size_t(m) * n * 2;
  constexpr std::size_t kMaxWorkspace = 32u << 20;
  check_cuda(cudaMalloc(&buf.a, cd_bytes > ab_bytes ? cd_bytes : ab_bytes), "cudaMalloc a");
  check_cuda(cudaMalloc(&buf.b, cd_bytes > ab_bytes ? cd_bytes : ab_bytes), "cudaMalloc b");
  check_cuda(cudaMalloc(&buf.c, cd_bytes), "cudaMalloc c");
  check_cuda(cudaMalloc(&buf.d, cd_bytes), "cudaMalloc d");
  check_cuda(cudaMalloc(&buf.ws, kMaxWorkspace), "cudaMalloc workspace");
  check_cuda(cudaMalloc(&buf.scales, 512), "cudaMalloc scales");
  const std::vector<float> ones(128, 1.0f);
  check_cuda(cudaMemcpy(buf.scales, ones.data(), 512, cudaMemcpyHostToDevice), "scales");
  check_cuda(cudaMemset(buf.a, 0x38, ab_bytes), "memset a"); // 0x38 is 1.0 in E4M3
  check_cuda(cudaMemset(buf.b, 0x38, ab_bytes), "memset b");
  cublasLtHandle_t lt;
  check_lt(cublasLtCreate(&lt), "cublasLtCreate");
  for (bool offset : {false, true})
    for (CPlace c : {CPlace::own, CPlace::d, CPlace::a, CPlace::b})
      for (std::size_t ws : {std::size_t{1} << 20, kMaxWorkspace})
        for (bool own_stream : {false, true})
          for (bool fast_accum : {false, true})
            try_variant(lt, buf, m, n, k, {offset, c, ws, own_stream, fast_accum});
  cublasLtDestroy(lt);
  for (void *p : {buf.a, buf.b, buf.c, buf.d, buf.ws, buf.scales})
    cudaFree(p);
  return 0;
}
