# SPDX-License-Identifier: MIT
# p12_rowscale_inline: KernelBench level 1 problem 12 (diag(A) @ B, N = M =
# 4096) as a CUDA kernel compiled with torch.utils.cpp_extension.load_inline:
# each thread scales four consecutive floats of a row of B (one float4 load
# and store) by that row's A. The reference (A.unsqueeze(1) * B) is the same
# single memory-bound pass through torch's broadcasting elementwise kernel,
# so this should be near-equal, perhaps modestly faster where the broadcast
# keeps torch from vectorising its loads. No expect is declared. Exact: one
# product per element, as in the reference. nodus builds the extension at
# build time (include/nodus/torch_ext.py): its arguments are constants.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>

// y[r, c] = a[r] * b[r, c]; cols4 = cols / 4 float4s per row
__global__ void rowscale4(const float *__restrict__ a, const float4 *__restrict__ b,
                          float4 *__restrict__ y, long rows, long cols4)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * cols4)
        return;
    float s = a[i / cols4];
    float4 v = b[i];
    v.x *= s; v.y *= s; v.z *= s; v.w *= s;
    y[i] = v;
}

// the scalar tail for a column count that is not a multiple of 4
__global__ void rowscale1(const float *__restrict__ a, const float *__restrict__ b,
                          float *__restrict__ y, long rows, long cols)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows * cols)
        y[i] = a[i / cols] * b[i];
}

torch::Tensor rowscale(torch::Tensor a, torch::Tensor b)
{
    TORCH_CHECK(a.is_cuda() && b.is_cuda() && a.scalar_type() == torch::kFloat &&
                b.scalar_type() == torch::kFloat && a.dim() == 1 && b.dim() == 2 &&
                a.size(0) == b.size(0), "rowscale: expected float32 cuda A (N) and B (N, M)");
    a = a.contiguous();
    b = b.contiguous();
    auto y = torch::empty_like(b);
    long rows = b.size(0), cols = b.size(1);
    int threads = 256;
    auto stream = at::cuda::getCurrentCUDAStream();
    if (cols % 4 == 0) {
        long n = rows * (cols / 4);
        rowscale4<<<(n + threads - 1) / threads, threads, 0, stream>>>(
            a.data_ptr<float>(), reinterpret_cast<const float4 *>(b.data_ptr<float>()),
            reinterpret_cast<float4 *>(y.data_ptr<float>()), rows, cols / 4);
    } else {
        long n = rows * cols;
        rowscale1<<<(n + threads - 1) / threads, threads, 0, stream>>>(
            a.data_ptr<float>(), b.data_ptr<float>(), y.data_ptr<float>(), rows, cols);
    }
    return y;
}
"""
cpp_source = "torch::Tensor rowscale(torch::Tensor a, torch::Tensor b);"

ext = load_inline(name="nodus_kb12_rowscale", cpp_sources=cpp_source,
                  cuda_sources=cuda_source, functions=["rowscale"],
                  extra_cuda_cflags=["-O3"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return ext.rowscale(A, B)
