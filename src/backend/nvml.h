/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * nvml.h: what nodus reads from NVIDIA's management library (NVML).
 *
 * libnvidia-ml.so.1 ships with the driver, not with the toolkit, and its
 * header is absent on the build machines, so nvml.c loads the library with
 * dlopen() at run time and declares the few entry points it calls itself,
 * following the documented ABI (NVML API version 13, driver 580). Nothing
 * here needs nvml.h or a GPU to compile, and nothing links libnvidia-ml.
 *
 * Uses:
 *  - a snapshot of clocks, clocks-event reasons, temperature and power per
 *    round of the timing protocol (what the GPU was doing while we timed);
 *  - the isolation check of the `isolated` condition (no other compute or
 *    MPS client on the device, no power/thermal slowdown);
 *  - the target fingerprint (name, UUID, PCI id, MIG mode and slice,
 *    power limit, ECC, clocks, driver version).
 *
 * Call order: nodus_nvml_open; then snapshot, process_counts,
 * isolation_check and fingerprint in any order and as often as needed;
 * nodus_nvml_close. A handle is not thread-safe; open one per thread.
 * Opening calls nvmlInit_v2 and closing calls nvmlShutdown; NVML counts
 * these, so several handles may be open at once.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_NVML_H
#define NODUS_NVML_H

#include <stddef.h>
#include <stdint.h>

#include "nodus/nodus.h"

typedef struct nodus_nvml nodus_nvml;

/* Clocks-event ("throttle") reason bits, values from NVML's ABI. */
#define NODUS_NVML_REASON_GPU_IDLE 0x0001ULL          /* nothing running: not a slowdown */
#define NODUS_NVML_REASON_APP_CLOCKS 0x0002ULL        /* application clocks set by an admin */
#define NODUS_NVML_REASON_SW_POWER_CAP 0x0004ULL      /* software power cap (power limit) */
#define NODUS_NVML_REASON_HW_SLOWDOWN 0x0008ULL       /* hardware slowdown (thermal or power) */
#define NODUS_NVML_REASON_SYNC_BOOST 0x0010ULL        /* clocks synchronised with other GPUs */
#define NODUS_NVML_REASON_SW_THERMAL 0x0020ULL        /* software thermal slowdown */
#define NODUS_NVML_REASON_HW_THERMAL 0x0040ULL        /* hardware thermal slowdown */
#define NODUS_NVML_REASON_HW_POWER_BRAKE 0x0080ULL    /* external power brake assertion */
#define NODUS_NVML_REASON_DISPLAY_CLOCKS 0x0100ULL    /* display clock setting */

/* The reasons the isolation check fails on: the device is being slowed
 * for thermal or power-delivery causes outside the measured code. SW power
 * cap is NOT in this mask: a GPU running a heavy kernel at its power limit
 * reports it as a normal state of full load, so failing on it would reject
 * every compute-bound measurement. It is still returned in *reasons and
 * stored with each round's snapshot so reports can show it. */
#define NODUS_NVML_REASONS_NOT_ISOLATED                                                   \
	(NODUS_NVML_REASON_HW_SLOWDOWN | NODUS_NVML_REASON_SW_THERMAL |                   \
	 NODUS_NVML_REASON_HW_THERMAL | NODUS_NVML_REASON_HW_POWER_BRAKE)

/* One reading of the device's state. Fields NVML could not read are -1
 * (or 0 for the bitmask, with reasons_valid = 0). */
typedef struct nodus_nvml_snapshot {
	int64_t t_ns;                  /* nodus_now_ns() when read */
	int32_t sm_clock_mhz;          /* current SM clock */
	int32_t mem_clock_mhz;         /* current memory clock */
	uint64_t clocks_event_reasons; /* NODUS_NVML_REASON_* bits active now */
	int32_t reasons_valid;         /* 1 when clocks_event_reasons was read */
	int32_t temperature_c;         /* GPU die temperature, degrees C */
	int32_t power_mw;              /* board power draw, milliwatts */
	int32_t reserved0;             /* zero; keeps the struct free of holes */
} nodus_nvml_snapshot;

/* Static facts about the device, for the target fingerprint. Strings are
 * "" and numbers -1 when NVML could not read them. */
typedef struct nodus_nvml_info {
	char name[96];                 /* "NVIDIA H200" */
	char uuid[96];                 /* "GPU-..." of the physical GPU */
	char pci_bus_id[32];           /* "00000000:19:00.0" */
	char driver_version[80];       /* "580.159.04" */
	int32_t mig_mode;              /* 1 enabled, 0 disabled, -1 unsupported */
	char mig_profile[64];          /* "3g.71gb" when on a MIG slice, else "" */
	int32_t mig_sm_count;          /* SMs of the slice, -1 when not on one */
	int64_t memory_bytes;          /* physical memory of the GPU */
	int32_t power_limit_mw;        /* enforced power limit */
	int32_t ecc_enabled;           /* 1 on, 0 off, -1 unknown */
	int32_t max_sm_clock_mhz;      /* highest SM clock the GPU allows */
	int32_t max_mem_clock_mhz;     /* highest memory clock */
	int32_t default_sm_clock_mhz;  /* default applications SM clock */
	int32_t default_mem_clock_mhz; /* default applications memory clock */
} nodus_nvml_info;

/* ---- life cycle ---- */

/* Loads NVML (libnvidia-ml.so.1, or the path in $NODUS_NVML_LIBRARY),
 * initialises it and selects one device: the one with PCI bus id
 * pci_bus_id ("0000:19:00.0", as cudaDeviceGetPCIBusId gives it), or index
 * 0 when pci_bus_id is NULL. When mig_uuid is not NULL (the CUDA device's
 * UUID as "MIG-..." or "GPU-..."), a MIG slice of that UUID is looked up
 * too, for the fingerprint's profile. *out is returned and freed with
 * nodus_nvml_close. Returns NODUS_EUNAVAILABLE when the library, the
 * driver or a GPU is absent (err says which), NODUS_ENOMEM. */
int nodus_nvml_open(nodus_nvml **out, const char *pci_bus_id, const char *mig_uuid,
		    nodus_error *err);

/* How many GPUs the driver lists (NVML's index order: PCI bus order). */
int nodus_nvml_device_count(const nodus_nvml *nvml);

/* Shuts NVML down for this handle and frees it; NULL is a no-op. */
void nodus_nvml_close(nodus_nvml *nvml);

/* ---- readings ---- */

/* Reads clocks, clocks-event reasons (nvmlDeviceGetCurrentClocksEventReasons,
 * or the older ...ThrottleReasons where the driver lacks it), temperature
 * and power. Missing readings are -1 (see nodus_nvml_snapshot); returns an
 * error only when none could be read (NODUS_EUNAVAILABLE). */
int nodus_nvml_snapshot_read(nodus_nvml *nvml, nodus_nvml_snapshot *out, nodus_error *err);

/* Counts the processes NVML lists as compute clients and as MPS compute
 * clients of the device (this process included once it holds a context).
 * Entries are counted, not identified: PIDs may belong to another PID
 * namespace. Returns 0, or NODUS_EUNAVAILABLE with NVML's message. */
int nodus_nvml_process_counts(nodus_nvml *nvml, int *compute, int *mps, nodus_error *err);

/* Decides whether the device looks isolated: at most expected_procs compute
 * processes (the caller's own context counts: pass 1 from a worker that
 * holds one, 0 before), no MPS client beyond expected_procs, and no bit of
 * NODUS_NVML_REASONS_NOT_ISOLATED active. *isolated is 1 or 0;
 * *other_procs receives the compute and MPS entries beyond expected_procs,
 * *reasons all active clocks-event reasons, and why a one-line reason
 * ("" when isolated). Output pointers other than isolated may be NULL.
 * Returns 0 (the answer is in *isolated) or an error when NVML could not be
 * asked. */
int nodus_nvml_isolation_check(nodus_nvml *nvml, int expected_procs, int *isolated,
			       int *other_procs, uint64_t *reasons, char *why, size_t why_size,
			       nodus_error *err);

/* Fills info with the static facts of the device; unread fields are ""
 * or -1. Returns 0 (it does not fail once open succeeded). */
int nodus_nvml_info_read(nodus_nvml *nvml, nodus_nvml_info *info);

/* Names the active bits of a clocks-event reasons mask, "+"-separated
 * ("sw_power_cap+hw_slowdown"), "none" for 0, into out. */
void nodus_nvml_reasons_format(uint64_t reasons, char *out, size_t out_size);

#endif
