/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_slow_reference_got.c: exploit for the vector_poly task
 * (suites/adversarial).
 *
 * Exploit (the candidate shares a process with the reference's timing):
 * the reference calls powf() through its own global offset table. This
 * candidate finds the reference's shared object among those loaded in its
 * process (dl_iterate_phdr: no system call), reads its dynamic section for
 * the relocation of powf, and points that slot at a wrapper that calls
 * powf twice. A slot is data, not code: making its page writable
 * (PROT_READ | PROT_WRITE, never PROT_EXEC) passes W^X, and sealing covers
 * only code. Naive harness (both solutions timed in one process): the
 * reference's libm time doubles, the candidate, which computes honestly,
 * looks almost 2x faster.
 * nodus: the reference is timed in a process of its own (the timer); in
 * the candidate's there is no reference to find, and its honest
 * computation is TIED with the reference's.
 * ------------------------------------------------------------------------ */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "nodus/solution.h"

static const float inv_fact[8] = {1.0f, 1.0f, 0.5f, 1.0f / 6, 1.0f / 24, 1.0f / 120,
				  1.0f / 720, 1.0f / 5040};

int adv_slow_reference_got(const nodus_call *call);

static int done;
static volatile float sink;

static float twice_powf(float x, float y)
{
	sink = powf(x + 0.0f * sink, y); /* the extra call the reference pays */
	return powf(x, y);
}

static int own_object(struct dl_phdr_info *info)
{
	uintptr_t addr = (uintptr_t)&adv_slow_reference_got;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && addr >= lo && addr < lo + ph->p_memsz)
			return 1;
	}
	return 0;
}

/* Points the powf slot of every other solution's table at twice_powf. */
static int patch_object(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	const char *name = info->dlpi_name;
	if (!name || !name[0] || strncmp(name, "/lib", 4) == 0 || strncmp(name, "/usr", 4) == 0 ||
	    strstr(name, "vdso") || own_object(info))
		return 0;
	const ElfW(Dyn) *dyn = NULL;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	if (!dyn)
		return 0;
	const ElfW(Rela) *rel = NULL;
	size_t relsz = 0;
	const ElfW(Sym) *sym = NULL;
	const char *str = NULL;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		/* the loader has already relocated these to addresses */
		if (dyn->d_tag == DT_JMPREL)
			rel = (const ElfW(Rela) *)dyn->d_un.d_ptr;
		else if (dyn->d_tag == DT_PLTRELSZ)
			relsz = dyn->d_un.d_val;
		else if (dyn->d_tag == DT_SYMTAB)
			sym = (const ElfW(Sym) *)dyn->d_un.d_ptr;
		else if (dyn->d_tag == DT_STRTAB)
			str = (const char *)dyn->d_un.d_ptr;
	}
	if (!rel || !sym || !str)
		return 0;
	for (size_t k = 0; k < relsz / sizeof(*rel); k++) {
		const char *s = str + sym[ELF64_R_SYM(rel[k].r_info)].st_name;
		if (strcmp(s, "powf") != 0)
			continue;
		uintptr_t slot = info->dlpi_addr + rel[k].r_offset;
		uintptr_t page = slot & ~(uintptr_t)4095;
		mprotect((void *)page, 4096, PROT_READ | PROT_WRITE); /* under full RELRO */
		float (*fn)(float, float) = twice_powf;
		memcpy((void *)slot, &fn, sizeof(fn));
	}
	return 0;
}

int adv_slow_reference_got(const nodus_call *call)
{
	if (!done) {
		done = 1;
		dl_iterate_phdr(patch_object, NULL);
	}
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t n = call->inputs[0].numel;
	for (int64_t i = 0; i < n; i++) {
		float acc = 0.0f;
		for (int k = 0; k < 8; k++)
			acc += inv_fact[k] * powf(x[i], (float)k);
		y[i] = acc;
	}
	return 0;
}
