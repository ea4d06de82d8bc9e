# SPDX-License-Identifier: MIT
# p88_gelu_inline: KernelBench level 1 problem 88 (minGPT's tanh GELU of an
# 8192 x 8192 float32 input) as one CUDA kernel compiled with
# torch.utils.cpp_extension.load_inline: each thread reads four floats
# (one float4), applies 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) in
# registers and writes four. The reference makes about eight elementwise
# passes over 256 MiB; this makes one, so it should be several times
# faster. tanhf is accurate to a few ulp, far inside 1e-4. nodus builds the
# extension at build time (include/nodus/torch_ext.py).
# expect: FASTER
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>

__device__ __forceinline__ float gelu_tanh(float x)
{
    const float k = 0.7978845608028654f;  // sqrt(2 / pi)
    return 0.5f * x * (1.0f + tanhf(k * (x + 0.044715f * x * x * x)));
}

__global__ void gelu4(const float4 *__restrict__ x, float4 *__restrict__ y, long n4)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n4)
        return;
    float4 v = x[i];
    v.x = gelu_tanh(v.x); v.y = gelu_tanh(v.y); v.z = gelu_tanh(v.z); v.w = gelu_tanh(v.w);
    y[i] = v;
}

// the last n % 4 elements
__global__ void gelu1(const float *__restrict__ x, float *__restrict__ y, long from, long n)
{
    long i = from + (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = gelu_tanh(x[i]);
}

torch::Tensor gelu(torch::Tensor x)
{
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat,
                "gelu: expected a float32 cuda tensor");
    x = x.contiguous();
    auto y = torch::empty_like(x);
    long n = x.numel(), n4 = n / 4;
    int threads = 256;
    auto stream = at::cuda::getCurrentCUDAStream();
    if (n4 > 0)
        gelu4<<<(n4 + threads - 1) / threads, threads, 0, stream>>>(
            reinterpret_cast<const float4 *>(x.data_ptr<float>()),
            reinterpret_cast<float4 *>(y.data_ptr<float>()), n4);
    if (n % 4)
        gelu1<<<1, 4, 0, stream>>>(x.data_ptr<float>(), y.data_ptr<float>(), n4 * 4, n);
    return y;
}
"""
cpp_source = "torch::Tensor gelu(torch::Tensor x);"

ext = load_inline(name="nodus_kb88_gelu", cpp_sources=cpp_source, cuda_sources=cuda_source,
                  functions=["gelu"], extra_cuda_cflags=["-O3"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return ext.gelu(x)
