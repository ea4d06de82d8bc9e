/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * nvml.c: NVML loaded at run time, without nvml.h.
 *
 * The types below are copies of the documented NVML ABI (nvml.h of CUDA
 * 13.0, NVML API version 13): handles are opaque pointers, return codes are
 * int, enums are int-sized. Only the versioned symbols nvml.h maps its
 * names to are used (nvmlInit_v2, nvmlDeviceGetHandleByIndex_v2, ...), so
 * the behaviour matches a program compiled against the header.
 *
 * Required symbols (open fails without them): nvmlInit_v2, nvmlShutdown,
 * nvmlErrorString, nvmlDeviceGetHandleByIndex_v2, nvmlDeviceGetCount_v2.
 * Every other symbol is optional: where a driver lacks it, the reading it
 * gives is reported as unknown (-1 or "").
 * ------------------------------------------------------------------------ */
#include "backend/nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

/* ---- the ABI subset (values from nvml.h, CUDA 13.0) ---- */
typedef int nvml_return;          /* nvmlReturn_t */
typedef struct nvml_device_st *nvml_device; /* nvmlDevice_t */

#define NVML_SUCCESS 0
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2
#define NVML_TEMPERATURE_GPU 0
#define NVML_DEVICE_MIG_ENABLE 1

typedef struct nvml_pci_info { /* nvmlPciInfo_t (v3) */
	char bus_id_legacy[16];
	unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
	char bus_id[32];
} nvml_pci_info;

typedef struct nvml_memory { /* nvmlMemory_t (v1) */
	unsigned long long total, free, used;
} nvml_memory;

typedef struct nvml_device_attributes { /* nvmlDeviceAttributes_t */
	unsigned int multiprocessor_count, shared_copy_engine_count, shared_decoder_count,
		shared_encoder_count, shared_jpeg_count, shared_ofa_count,
		gpu_instance_slice_count, compute_instance_slice_count;
	unsigned long long memory_size_mb;
} nvml_device_attributes;

typedef nvml_return (*fn_void)(void);
typedef const char *(*fn_error_string)(nvml_return);
typedef nvml_return (*fn_count)(unsigned int *);
typedef nvml_return (*fn_by_index)(unsigned int, nvml_device *);
typedef nvml_return (*fn_by_string)(const char *, nvml_device *);
typedef nvml_return (*fn_string)(nvml_device, char *, unsigned int);
typedef nvml_return (*fn_sys_string)(char *, unsigned int);
typedef nvml_return (*fn_pci)(nvml_device, nvml_pci_info *);
typedef nvml_return (*fn_clock)(nvml_device, int, unsigned int *);
typedef nvml_return (*fn_two_clocks)(nvml_device, int, int, unsigned int *);
typedef nvml_return (*fn_uint)(nvml_device, unsigned int *);
typedef nvml_return (*fn_two_uint)(nvml_device, unsigned int *, unsigned int *);
typedef nvml_return (*fn_two_int)(nvml_device, int *, int *);
typedef nvml_return (*fn_ull)(nvml_device, unsigned long long *);
typedef nvml_return (*fn_temperature)(nvml_device, int, unsigned int *);
typedef nvml_return (*fn_procs)(nvml_device, unsigned int *, void *);
typedef nvml_return (*fn_memory)(nvml_device, nvml_memory *);
typedef nvml_return (*fn_attributes)(nvml_device, nvml_device_attributes *);

struct nodus_nvml {
	void *lib;                         /* dlopen handle of libnvidia-ml */
	int initialised;                   /* nvmlInit_v2 succeeded; shut down on close */
	nvml_device dev;                   /* the physical GPU */
	nvml_device mig;                   /* the MIG slice we run on, or NULL */
	int count;                         /* GPUs the driver lists */
	fn_void shutdown;                  /* nvmlShutdown */
	fn_error_string error_string;      /* nvmlErrorString */
	fn_string get_name;                /* nvmlDeviceGetName */
	fn_string get_uuid;                /* nvmlDeviceGetUUID */
	fn_sys_string driver_version;      /* nvmlSystemGetDriverVersion */
	fn_pci get_pci;                    /* nvmlDeviceGetPciInfo_v3 */
	fn_clock clock_info;               /* nvmlDeviceGetClockInfo */
	fn_clock max_clock_info;           /* nvmlDeviceGetMaxClockInfo */
	fn_clock default_app_clock;        /* nvmlDeviceGetDefaultApplicationsClock */
	fn_ull event_reasons;              /* ...CurrentClocksEventReasons or ...ThrottleReasons */
	fn_temperature temperature;        /* nvmlDeviceGetTemperature */
	fn_uint power_usage;               /* nvmlDeviceGetPowerUsage */
	fn_uint power_limit;               /* nvmlDeviceGetEnforcedPowerLimit */
	fn_two_int ecc_mode;               /* nvmlDeviceGetEccMode */
	fn_two_uint mig_mode;              /* nvmlDeviceGetMigMode */
	fn_procs compute_procs;            /* nvmlDeviceGetComputeRunningProcesses_v3 */
	fn_procs mps_procs;                /* nvmlDeviceGetMPSComputeRunningProcesses_v3 */
	fn_memory memory_info;             /* nvmlDeviceGetMemoryInfo */
	fn_attributes attributes;          /* nvmlDeviceGetAttributes_v2 */
};

/* dlsym into a typed pointer: POSIX guarantees the conversion works, C
 * does not, hence the memcpy. */
static void load_sym(void *lib, const char *name, void *fnptr)
{
	void *p = dlsym(lib, name);
	memcpy(fnptr, &p, sizeof p);
}

static const char *nvml_msg(const nodus_nvml *n, nvml_return rc)
{
	const char *s = n->error_string ? n->error_string(rc) : NULL;
	return s ? s : "unknown NVML error";
}

/* Loads the optional entry points; each may stay NULL. */
static void load_optional(nodus_nvml *n)
{
	load_sym(n->lib, "nvmlDeviceGetName", &n->get_name);
	load_sym(n->lib, "nvmlDeviceGetUUID", &n->get_uuid);
	load_sym(n->lib, "nvmlSystemGetDriverVersion", &n->driver_version);
	load_sym(n->lib, "nvmlDeviceGetPciInfo_v3", &n->get_pci);
	load_sym(n->lib, "nvmlDeviceGetClockInfo", &n->clock_info);
	load_sym(n->lib, "nvmlDeviceGetMaxClockInfo", &n->max_clock_info);
	load_sym(n->lib, "nvmlDeviceGetDefaultApplicationsClock", &n->default_app_clock);
	/* Renamed in CUDA 12.2; the old name stays for older drivers. */
	load_sym(n->lib, "nvmlDeviceGetCurrentClocksEventReasons", &n->event_reasons);
	if (!n->event_reasons)
		load_sym(n->lib, "nvmlDeviceGetCurrentClocksThrottleReasons", &n->event_reasons);
	load_sym(n->lib, "nvmlDeviceGetTemperature", &n->temperature);
	load_sym(n->lib, "nvmlDeviceGetPowerUsage", &n->power_usage);
	load_sym(n->lib, "nvmlDeviceGetEnforcedPowerLimit", &n->power_limit);
	load_sym(n->lib, "nvmlDeviceGetEccMode", &n->ecc_mode);
	load_sym(n->lib, "nvmlDeviceGetMigMode", &n->mig_mode);
	load_sym(n->lib, "nvmlDeviceGetComputeRunningProcesses_v3", &n->compute_procs);
	load_sym(n->lib, "nvmlDeviceGetMPSComputeRunningProcesses_v3", &n->mps_procs);
	load_sym(n->lib, "nvmlDeviceGetMemoryInfo", &n->memory_info);
	load_sym(n->lib, "nvmlDeviceGetAttributes_v2", &n->attributes);
}

/* Picks the device by PCI bus id (or index 0) and the MIG slice by UUID. */
static int select_device(nodus_nvml *n, const char *pci_bus_id, const char *mig_uuid,
			 nodus_error *err)
{
	fn_count get_count = NULL;
	fn_by_index by_index = NULL;
	fn_by_string by_pci = NULL, by_uuid = NULL;
	load_sym(n->lib, "nvmlDeviceGetCount_v2", &get_count);
	load_sym(n->lib, "nvmlDeviceGetHandleByIndex_v2", &by_index);
	load_sym(n->lib, "nvmlDeviceGetHandleByPciBusId_v2", &by_pci);
	load_sym(n->lib, "nvmlDeviceGetHandleByUUID", &by_uuid);
	if (!get_count || !by_index)
		return NODUS_ERR(err, NODUS_EUNAVAILABLE,
				 "nvml: libnvidia-ml lacks nvmlDeviceGetCount_v2 or "
				 "nvmlDeviceGetHandleByIndex_v2 (driver too old)");
	unsigned int count = 0;
	nvml_return rc = get_count(&count);
	if (rc != NVML_SUCCESS || count == 0)
		return NODUS_ERR(err, NODUS_EUNAVAILABLE, "nvml: no GPU: %s",
				 rc != NVML_SUCCESS ? nvml_msg(n, rc) : "device count is 0");
	n->count = (int)count;
	if (pci_bus_id && by_pci)
		rc = by_pci(pci_bus_id, &n->dev);
	else
		rc = by_index(0, &n->dev);
	if (rc != NVML_SUCCESS)
		return NODUS_ERR(err, NODUS_EUNAVAILABLE, "nvml: cannot open GPU '%s': %s",
				 pci_bus_id ? pci_bus_id : "index 0", nvml_msg(n, rc));
	/* A MIG slice has its own UUID ("MIG-..."); the physical GPU's UUID
	 * resolves to the parent, which is not a slice. */
	if (mig_uuid && by_uuid && strncmp(mig_uuid, "MIG-", 4) == 0) {
		nvml_device m = NULL;
		if (by_uuid(mig_uuid, &m) == NVML_SUCCESS)
			n->mig = m;
	}
	return 0;
}

int nodus_nvml_open(nodus_nvml **out, const char *pci_bus_id, const char *mig_uuid,
		    nodus_error *err)
{
	int ret = 0;
	*out = NULL;
	nodus_nvml *n = calloc(1, sizeof *n);
	if (!n)
		return NODUS_ERR(err, NODUS_ENOMEM, "nvml: out of memory");
	const char *path = getenv("NODUS_NVML_LIBRARY");
	if (!path || !*path)
		path = "libnvidia-ml.so.1";
	n->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!n->lib) {
		const char *why = dlerror();
		ret = NODUS_ERR(err, NODUS_EUNAVAILABLE,
				"nvml: no NVIDIA driver: cannot load '%s': %s", path,
				why ? why : "unknown dlopen error");
		goto out;
	}
	fn_void init = NULL;
	load_sym(n->lib, "nvmlInit_v2", &init);
	load_sym(n->lib, "nvmlShutdown", &n->shutdown);
	load_sym(n->lib, "nvmlErrorString", &n->error_string);
	if (!init || !n->shutdown) {
		ret = NODUS_ERR(err, NODUS_EUNAVAILABLE,
				"nvml: '%s' lacks nvmlInit_v2 or nvmlShutdown", path);
		goto out;
	}
	nvml_return rc = init();
	if (rc != NVML_SUCCESS) {
		ret = NODUS_ERR(err, NODUS_EUNAVAILABLE, "nvml: nvmlInit_v2 failed: %s",
				nvml_msg(n, rc));
		goto out;
	}
	n->initialised = 1;
	ret = select_device(n, pci_bus_id, mig_uuid, err);
	if (ret)
		goto out;
	load_optional(n);
	*out = n;
	n = NULL;
out:
	nodus_nvml_close(n);
	return ret;
}

int nodus_nvml_device_count(const nodus_nvml *nvml)
{
	return nvml ? nvml->count : 0;
}

void nodus_nvml_close(nodus_nvml *nvml)
{
	if (!nvml)
		return;
	if (nvml->initialised)
		nvml->shutdown();
	if (nvml->lib)
		dlclose(nvml->lib);
	free(nvml);
}

int nodus_nvml_snapshot_read(nodus_nvml *nvml, nodus_nvml_snapshot *out, nodus_error *err)
{
	unsigned int v = 0;
	int read = 0;
	memset(out, 0, sizeof *out);
	out->t_ns = (int64_t)nodus_now_ns();
	out->sm_clock_mhz = out->mem_clock_mhz = out->temperature_c = out->power_mw = -1;
	if (nvml->clock_info && nvml->clock_info(nvml->dev, NVML_CLOCK_SM, &v) == NVML_SUCCESS) {
		out->sm_clock_mhz = (int32_t)v;
		read++;
	}
	if (nvml->clock_info && nvml->clock_info(nvml->dev, NVML_CLOCK_MEM, &v) == NVML_SUCCESS) {
		out->mem_clock_mhz = (int32_t)v;
		read++;
	}
	unsigned long long r = 0;
	if (nvml->event_reasons && nvml->event_reasons(nvml->dev, &r) == NVML_SUCCESS) {
		out->clocks_event_reasons = r;
		out->reasons_valid = 1;
		read++;
	}
	if (nvml->temperature &&
	    nvml->temperature(nvml->dev, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS) {
		out->temperature_c = (int32_t)v;
		read++;
	}
	if (nvml->power_usage && nvml->power_usage(nvml->dev, &v) == NVML_SUCCESS) {
		out->power_mw = (int32_t)v;
		read++;
	}
	if (!read)
		return NODUS_ERR(err, NODUS_EUNAVAILABLE,
				 "nvml: no clock, reason, temperature or power reading succeeded");
	return 0;
}

/* Counts entries of a process list queried with a NULL buffer: NVML says
 * SUCCESS with 0 entries, or INSUFFICIENT_SIZE with the count needed. */
static int count_procs(nodus_nvml *n, fn_procs fn, const char *what, int *count,
		       nodus_error *err)
{
	*count = 0;
	if (!fn)
		return NODUS_ERR(err, NODUS_EUNAVAILABLE, "nvml: driver lacks %s", what);
	unsigned int c = 0;
	nvml_return rc = fn(n->dev, &c, NULL);
	if (rc == NVML_SUCCESS || rc == NVML_ERROR_INSUFFICIENT_SIZE) {
		*count = (int)c;
		return 0;
	}
	if (rc == NVML_ERROR_NOT_SUPPORTED)
		return 0; /* e.g. MPS listing on a device without MPS support */
	return NODUS_ERR(err, NODUS_EUNAVAILABLE, "nvml: %s failed: %s", what, nvml_msg(n, rc));
}

int nodus_nvml_process_counts(nodus_nvml *nvml, int *compute, int *mps, nodus_error *err)
{
	int ret = count_procs(nvml, nvml->compute_procs,
			      "nvmlDeviceGetComputeRunningProcesses_v3", compute, err);
	if (ret)
		return ret;
	return count_procs(nvml, nvml->mps_procs, "nvmlDeviceGetMPSComputeRunningProcesses_v3",
			   mps, err);
}

int nodus_nvml_isolation_check(nodus_nvml *nvml, int expected_procs, int *isolated,
			       int *other_procs, uint64_t *reasons, char *why, size_t why_size,
			       nodus_error *err)
{
	int compute = 0, mps = 0;
	int ret = nodus_nvml_process_counts(nvml, &compute, &mps, err);
	if (ret)
		return ret;
	nodus_nvml_snapshot s;
	ret = nodus_nvml_snapshot_read(nvml, &s, err);
	if (ret)
		return ret;
	if (!s.reasons_valid)
		return NODUS_ERR(err, NODUS_EUNAVAILABLE,
				 "nvml: cannot read clocks-event reasons for the isolation check");
	/* A process that is an MPS client appears in the MPS list; the MPS
	 * server appears in the compute list. Either beyond our own is a
	 * co-tenant. */
	int others = (compute > expected_procs ? compute - expected_procs : 0) +
		     (mps > expected_procs ? mps - expected_procs : 0);
	uint64_t bad = s.clocks_event_reasons & NODUS_NVML_REASONS_NOT_ISOLATED;
	char names[128];
	nodus_nvml_reasons_format(bad, names, sizeof names);
	if (why && why_size) {
		if (others)
			snprintf(why, why_size,
				 "%d other process(es) on the GPU (%d compute, %d mps, %d expected)",
				 others, compute, mps, expected_procs);
		else if (bad)
			snprintf(why, why_size, "clocks slowed down by %s", names);
		else
			why[0] = '\0';
	}
	*isolated = !others && !bad;
	if (other_procs)
		*other_procs = others;
	if (reasons)
		*reasons = s.clocks_event_reasons;
	return 0;
}

static void read_string(nodus_nvml *n, fn_string fn, nvml_device d, char *out, size_t size)
{
	out[0] = '\0';
	if (fn && fn(d, out, (unsigned int)size) != NVML_SUCCESS)
		out[0] = '\0';
	out[size - 1] = '\0';
	(void)n;
}

static int32_t read_clock(fn_clock fn, nvml_device d, int type)
{
	unsigned int v = 0;
	if (fn && fn(d, type, &v) == NVML_SUCCESS)
		return (int32_t)v;
	return -1;
}

/* The MIG slice: its SM count and a profile name composed the way
 * nvidia-smi names GPU instance profiles ("<slices>g.<GB>gb"). */
static void read_mig(nodus_nvml *n, nodus_nvml_info *info)
{
	nvml_device_attributes a;
	memset(&a, 0, sizeof a);
	if (!n->mig || !n->attributes || n->attributes(n->mig, &a) != NVML_SUCCESS)
		return;
	info->mig_sm_count = (int32_t)a.multiprocessor_count;
	snprintf(info->mig_profile, sizeof info->mig_profile, "%ug.%llugb",
		 a.gpu_instance_slice_count, (a.memory_size_mb + 1023) / 1024);
}

int nodus_nvml_info_read(nodus_nvml *nvml, nodus_nvml_info *info)
{
	memset(info, 0, sizeof *info);
	read_string(nvml, nvml->get_name, nvml->dev, info->name, sizeof info->name);
	read_string(nvml, nvml->get_uuid, nvml->dev, info->uuid, sizeof info->uuid);
	if (!nvml->driver_version ||
	    nvml->driver_version(info->driver_version, sizeof info->driver_version) != NVML_SUCCESS)
		info->driver_version[0] = '\0';
	nvml_pci_info pci;
	memset(&pci, 0, sizeof pci);
	if (nvml->get_pci && nvml->get_pci(nvml->dev, &pci) == NVML_SUCCESS)
		snprintf(info->pci_bus_id, sizeof info->pci_bus_id, "%.31s", pci.bus_id);
	unsigned int cur = 0, pend = 0;
	info->mig_mode = -1;
	if (nvml->mig_mode && nvml->mig_mode(nvml->dev, &cur, &pend) == NVML_SUCCESS)
		info->mig_mode = cur == NVML_DEVICE_MIG_ENABLE;
	info->mig_sm_count = -1;
	read_mig(nvml, info);
	nvml_memory mem;
	info->memory_bytes = -1;
	if (nvml->memory_info && nvml->memory_info(nvml->dev, &mem) == NVML_SUCCESS)
		info->memory_bytes = (int64_t)mem.total;
	unsigned int mw = 0;
	info->power_limit_mw = -1;
	if (nvml->power_limit && nvml->power_limit(nvml->dev, &mw) == NVML_SUCCESS)
		info->power_limit_mw = (int32_t)mw;
	int ecc_cur = 0, ecc_pend = 0;
	info->ecc_enabled = -1;
	if (nvml->ecc_mode && nvml->ecc_mode(nvml->dev, &ecc_cur, &ecc_pend) == NVML_SUCCESS)
		info->ecc_enabled = ecc_cur != 0;
	info->max_sm_clock_mhz = read_clock(nvml->max_clock_info, nvml->dev, NVML_CLOCK_SM);
	info->max_mem_clock_mhz = read_clock(nvml->max_clock_info, nvml->dev, NVML_CLOCK_MEM);
	info->default_sm_clock_mhz = read_clock(nvml->default_app_clock, nvml->dev, NVML_CLOCK_SM);
	info->default_mem_clock_mhz =
		read_clock(nvml->default_app_clock, nvml->dev, NVML_CLOCK_MEM);
	return 0;
}

void nodus_nvml_reasons_format(uint64_t reasons, char *out, size_t out_size)
{
	static const struct {
		uint64_t bit;     /* NODUS_NVML_REASON_* */
		const char *name; /* stable name used in records */
	} names[] = {
		{NODUS_NVML_REASON_GPU_IDLE, "gpu_idle"},
		{NODUS_NVML_REASON_APP_CLOCKS, "app_clocks"},
		{NODUS_NVML_REASON_SW_POWER_CAP, "sw_power_cap"},
		{NODUS_NVML_REASON_HW_SLOWDOWN, "hw_slowdown"},
		{NODUS_NVML_REASON_SYNC_BOOST, "sync_boost"},
		{NODUS_NVML_REASON_SW_THERMAL, "sw_thermal"},
		{NODUS_NVML_REASON_HW_THERMAL, "hw_thermal"},
		{NODUS_NVML_REASON_HW_POWER_BRAKE, "hw_power_brake"},
		{NODUS_NVML_REASON_DISPLAY_CLOCKS, "display_clocks"},
	};
	if (!out_size)
		return;
	out[0] = '\0';
	size_t len = 0;
	uint64_t known = 0;
	for (size_t i = 0; i < NODUS_ARRAY_SIZE(names); i++) {
		known |= names[i].bit;
		if (!(reasons & names[i].bit))
			continue;
		int w = snprintf(out + len, out_size - len, "%s%s", len ? "+" : "",
				 names[i].name);
		if (w < 0 || (size_t)w >= out_size - len)
			return;
		len += (size_t)w;
	}
	if (reasons & ~known) {
		int w = snprintf(out + len, out_size - len, "%s0x%llx", len ? "+" : "",
				 (unsigned long long)(reasons & ~known));
		if (w < 0 || (size_t)w >= out_size - len)
			return;
		len += (size_t)w;
	}
	if (!len)
		snprintf(out, out_size, "none");
}
