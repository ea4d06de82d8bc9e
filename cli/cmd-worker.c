/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cmd-worker.c: the hidden `nodus __worker` and `nodus __stress` entry
 * points. Only the orchestrator starts them; see src/run/worker.h and
 * src/contention/contention.h.
 * ------------------------------------------------------------------------ */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "backend/backend.h"
#include "contention/contention.h"
#include "run/run.h"
#include "run/worker.h"

int nodus_cmd_worker(int argc, char **argv, const nodus_cli_ctx *ctx)
{
	(void)ctx;
	if (argc > 1 && nodus_cli_is_help(argv[1])) {
		printf("usage: nodus __worker [BACKEND [OBJECTS]]   (internal: started by `nodus run`;\n"
		       "opens BACKEND ahead if given, cuda under Landlock with the compile cache\n"
		       "OBJECTS readable when given, reads a job frame on stdin and answers on fd 3)\n");
		return NODUS_EXIT_OK;
	}
	return nodus_worker_main(argc > 1 ? argv[1] : NULL, argc > 2 ? argv[2] : NULL);
}

int nodus_cmd_stress(int argc, char **argv, const nodus_cli_ctx *ctx)
{
	(void)ctx;
	if (argc < 3 || nodus_cli_is_help(argv[1])) {
		printf("usage: nodus __stress KIND DUTY   (internal: a cpu stressor; KIND is membw,\n"
		       "compute or mixed, DUTY in (0,1]; prints its achieved rate every 200 ms)\n");
		return argc < 3 ? NODUS_EXIT_USAGE : NODUS_EXIT_OK;
	}
	return nodus_stress_main(argv[1], atof(argv[2]));
}

int nodus_cmd_gpustress(int argc, char **argv, const nodus_cli_ctx *ctx)
{
	(void)ctx;
	if (argc < 3 || nodus_cli_is_help(argv[1])) {
		printf("usage: nodus __gpustress KIND DUTY   (internal: a GPU co-tenant; KIND is\n"
		       "membw, fma or mixed, DUTY in (0,1]; prints its achieved rate every 200 ms)\n");
		return argc < 3 ? NODUS_EXIT_USAGE : NODUS_EXIT_OK;
	}
	void *sym = NULL;
	nodus_error err;
	if (nodus_backend_cuda_symbol("nodus_cuda_stress_main", &sym, &err)) {
		nodus_cli_print_error(&err);
		return NODUS_EXIT_USAGE;
	}
	int (*stress_main)(const char *, double);
	memcpy(&stress_main, &sym, sizeof(stress_main));
	return stress_main(strcmp(argv[1], "compute") == 0 ? "fma" : argv[1], atof(argv[2]));
}

/* `nodus __target BACKEND`: this device's fingerprint, split into its
 * profile and the fields naming its unit, as one JSON object on stdout
 * ({"error": ...} and exit 1 when the backend does not open): what
 * `nodus run --devices` compares between GPUs before it runs anything. */
int nodus_cmd_target(int argc, char **argv, const nodus_cli_ctx *ctx)
{
	(void)ctx;
	if (argc < 2 || nodus_cli_is_help(argv[1])) {
		printf("usage: nodus __target cpu|cuda   (internal: the device's fingerprint as\n"
		       "{\"profile\": {...}, \"unit\": {...}}, for `nodus run --devices`)\n");
		return argc < 2 ? NODUS_EXIT_USAGE : NODUS_EXIT_OK;
	}
	const nodus_backend_ops *ops = NULL;
	nodus_error err;
	memset(&err, 0, sizeof(err));
	void *dev = NULL;
	char *fp = NULL;
	int rc = 0;
	if (strcmp(argv[1], "cuda") == 0)
		rc = nodus_backend_cuda_load(&ops, &err);
	else if (strcmp(argv[1], "cpu") == 0)
		ops = nodus_backend_cpu();
	else
		rc = NODUS_ERR(&err, NODUS_EUSAGE, "expected cpu or cuda, got '%s'", argv[1]);
	if (!rc)
		rc = ops->open(&dev, &err);
	if (!rc)
		rc = ops->fingerprint(dev, &fp, &err);
	json_t *profile = fp ? json_loads(fp, 0, NULL) : NULL, *out;
	if (!rc && json_is_object(profile)) {
		json_t *unit = json_object();
		nodus__target_split_unit(profile, unit);
		out = json_pack("{s:O, s:o}", "profile", profile, "unit", unit);
	} else {
		out = json_pack("{s:s}", "error", rc ? err.message : "the fingerprint is not JSON");
		rc = rc ? rc : NODUS_EINTERNAL;
	}
	char *text = json_dumps(out, JSON_COMPACT | JSON_SORT_KEYS);
	if (text)
		printf("%s\n", text);
	free(text);
	json_decref(out);
	json_decref(profile);
	free(fp);
	if (dev)
		ops->close(dev);
	return rc ? 1 : NODUS_EXIT_OK;
}
