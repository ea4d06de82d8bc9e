# SPDX-License-Identifier: MIT
# vector_scale_inline: vector_scale the way KernelBench's CUDA candidates are
# written: a kernel compiled with torch.utils.cpp_extension.load_inline at
# import, called from a ModelNew. A worker may not run a compiler: nodus
# builds the extension at build time (include/nodus/torch_ext.py) and the
# worker imports it; expected correct.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>

__global__ void scale_kernel(const float *x, const float *a, float *y, long n)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a[0] * x[i];
}

torch::Tensor vector_scale(torch::Tensor x, torch::Tensor alpha)
{
    auto y = torch::empty_like(x);
    long n = x.numel();
    int threads = 256;
    long blocks = (n + threads - 1) / threads;
    scale_kernel<<<blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), alpha.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""
cpp_source = "torch::Tensor vector_scale(torch::Tensor x, torch::Tensor alpha);"

ext = load_inline(name="nodus_vector_scale", cpp_sources=cpp_source,
                  cuda_sources=cuda_source, functions=["vector_scale"],
                  extra_cuda_cflags=["-O3", "-arch=sm_90"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, alpha):
        return ext.vector_scale(x, alpha)
