/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cuda_fingerprint.cu: the target fingerprint of the CUDA backend.
 *
 * A record is comparable with another only when their targets match, so
 * the fingerprint names everything that changes a timing: the GPU model
 * and which physical GPU it is, whether it is a MIG slice (and which
 * profile), memory, SMs, L2, compute capability, ECC, power limit, clocks,
 * and the driver and CUDA versions. CUDA gives what it knows; NVML adds the
 * rest. Without NVML the NVML fields are null and "nvml" says why, so a
 * fingerprint never claims a value it did not read.
 *
 * The object's keys are stable (stored in records); add, never rename.
 * ------------------------------------------------------------------------ */
#include "backend/cuda/cuda_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends "key":"value" with JSON escaping of the value. */
static int add_str(nodus_buf *b, const char *key, const char *val)
{
	int ret = nodus_buf_addf(b, ",\"%s\":\"", key);
	for (const char *p = val; !ret && *p; p++) {
		unsigned char ch = (unsigned char)*p;
		if (ch == '"' || ch == '\\')
			ret = nodus_buf_addf(b, "\\%c", ch);
		else if (ch < 0x20)
			ret = nodus_buf_addf(b, "\\u%04x", ch);
		else
			ret = nodus_buf_add(b, p, 1);
	}
	return ret ? ret : nodus_buf_adds(b, "\"");
}

/* Appends "key":value, or "key":null when the value was not read (< 0). */
static int add_num(nodus_buf *b, const char *key, long long val)
{
	if (val < 0)
		return nodus_buf_addf(b, ",\"%s\":null", key);
	return nodus_buf_addf(b, ",\"%s\":%lld", key, val);
}

static int add_str_or_null(nodus_buf *b, const char *key, const char *val)
{
	if (!val || !*val)
		return nodus_buf_addf(b, ",\"%s\":null", key);
	return add_str(b, key, val);
}

/* The fields CUDA itself answers. */
static int add_cuda_fields(cuda_ctx *c, nodus_buf *b, nodus_error *err)
{
	cudaDeviceProp prop;
	int rt = 0, drv = 0, major = 0, minor = 0, ecc = 0;
	int ret = NODUS_CUDA_CALL(err, cudaGetDeviceProperties(&prop, c->device));
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaRuntimeGetVersion(&rt));
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaDriverGetVersion(&drv));
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaDeviceGetAttribute(&major,
								  cudaDevAttrComputeCapabilityMajor,
								  c->device));
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaDeviceGetAttribute(&minor,
								  cudaDevAttrComputeCapabilityMinor,
								  c->device));
	if (!ret)
		ret = NODUS_CUDA_CALL(err, cudaDeviceGetAttribute(&ecc, cudaDevAttrEccEnabled,
								  c->device));
	if (ret)
		return ret;
	char cc[16];
	snprintf(cc, sizeof cc, "%d.%d", major, minor);
	if (add_str(b, "gpu_name", prop.name) || add_str(b, "cuda_uuid", c->uuid) ||
	    add_str(b, "pci_bus_id", c->pci_bus_id) ||
	    add_num(b, "memory_bytes", (long long)prop.totalGlobalMem) ||
	    add_num(b, "sm_count", c->sm_count) || add_num(b, "l2_bytes", c->l2_bytes) ||
	    add_num(b, "persisting_l2_max_bytes", c->persisting_l2_max_bytes) ||
	    add_str(b, "compute_capability", cc) || add_num(b, "ecc", ecc) ||
	    add_num(b, "cuda_runtime_version", rt) || add_num(b, "cuda_driver_api_version", drv))
		return NODUS_ERR(err, NODUS_ENOMEM, "fingerprint: out of memory");
	return 0;
}

/* The fields only NVML answers; null with the reason when it cannot. */
static int add_nvml_fields(cuda_ctx *c, nodus_buf *b)
{
	nodus_nvml *nvml = NULL;
	nodus_nvml_info info;
	nodus_error nerr;
	char mig_uuid[64];
	snprintf(mig_uuid, sizeof mig_uuid, "MIG-%s", c->uuid + 4);
	memset(&info, 0, sizeof info);
	int have = nodus_nvml_open(&nvml, c->pci_bus_id, mig_uuid, &nerr) == 0;
	if (have)
		nodus_nvml_info_read(nvml, &info);
	nodus_nvml_close(nvml);
	if (!have) {
		info.mig_mode = info.mig_sm_count = info.power_limit_mw = info.ecc_enabled = -1;
		info.max_sm_clock_mhz = info.max_mem_clock_mhz = -1;
		info.default_sm_clock_mhz = info.default_mem_clock_mhz = -1;
		info.memory_bytes = -1;
	}
	int ret = add_str(b, "nvml", have ? "ok" : nerr.message);
	if (!ret)
		ret = add_str_or_null(b, "uuid", info.uuid);
	if (!ret)
		ret = add_str_or_null(b, "nvml_gpu_name", info.name);
	if (!ret)
		ret = add_num(b, "mig_mode", info.mig_mode);
	if (!ret)
		ret = add_str_or_null(b, "mig_profile", info.mig_profile);
	if (!ret)
		ret = add_num(b, "mig_sm_count", info.mig_sm_count);
	if (!ret)
		ret = add_num(b, "power_limit_mw", info.power_limit_mw);
	if (!ret)
		ret = add_num(b, "nvml_ecc", info.ecc_enabled);
	if (!ret)
		ret = add_num(b, "default_sm_clock_mhz", info.default_sm_clock_mhz);
	if (!ret)
		ret = add_num(b, "max_sm_clock_mhz", info.max_sm_clock_mhz);
	if (!ret)
		ret = add_num(b, "default_mem_clock_mhz", info.default_mem_clock_mhz);
	if (!ret)
		ret = add_num(b, "max_mem_clock_mhz", info.max_mem_clock_mhz);
	if (!ret)
		ret = add_str_or_null(b, "driver_version", info.driver_version);
	return ret;
}

int nodus__cuda_fingerprint(void *ctx, char **json_out, nodus_error *err)
{
	cuda_ctx *c = (cuda_ctx *)ctx;
	nodus_buf b = NODUS_BUF_INIT;
	*json_out = NULL;
	int ret = nodus_buf_adds(&b, "{\"backend\":\"cuda\"");
	if (!ret)
		ret = add_cuda_fields(c, &b, err);
	else
		ret = NODUS_ERR(err, NODUS_ENOMEM, "fingerprint: out of memory");
	if (!ret && (add_nvml_fields(c, &b) || nodus_buf_adds(&b, "}")))
		ret = NODUS_ERR(err, NODUS_ENOMEM, "fingerprint: out of memory");
	if (!ret)
		*json_out = nodus_buf_detach(&b);
	nodus_buf_release(&b);
	return ret;
}
