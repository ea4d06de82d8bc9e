/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * mps.c: the MPS control daemon of the mps condition (see contention.h).
 *
 * A daemon nodus starts runs in the foreground (-f) as a child in its own
 * process group on the live-children list and dies with the orchestrator
 * (PDEATHSIG), so neither an interrupt nor a SIGKILL of nodus leaves it
 * behind; a normal stop asks it to "quit" first so that it takes its MPS
 * server down cleanly. Its pipe and log directories are private
 * (mkdtemp), so it never interferes with a daemon someone else runs.
 * ------------------------------------------------------------------------ */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "contention/contention.h"

extern char **environ;

static int control_socket_exists(const char *pipe_dir)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/control", pipe_dir);
	return access(path, F_OK) == 0;
}

static int build_env(nodus_mps *m)
{
	size_t n = 0;
	while (environ[n])
		n++;
	m->env = calloc(n + 4, sizeof(char *));
	if (!m->env)
		return NODUS_ENOMEM;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "CUDA_MPS_", 9) != 0)
			m->env[k++] = environ[i];
	m->env[k++] = m->pipe_env;
	m->env[k++] = m->log_env;
	if (m->thread_env[0])
		m->env[k++] = m->thread_env;
	m->env[k] = NULL;
	return 0;
}

/* Asks the daemon of pipe directory `pipe_dir` to quit. */
static void quit_daemon(const char *pipe_dir)
{
	char env_pipe[600];
	snprintf(env_pipe, sizeof(env_pipe), "CUDA_MPS_PIPE_DIRECTORY=%s", pipe_dir);
	const char *env[] = {env_pipe, "PATH=/usr/local/cuda/bin:/usr/bin:/bin", NULL};
	const char *argv[] = {"nvidia-cuda-mps-control", NULL};
	nodus_child_opts o;
	memset(&o, 0, sizeof(o));
	o.argv = argv;
	o.env = env;
	o.stdin_fd = -1;
	o.stdout_fd = -2;
	o.stderr_fd = -2;
	nodus_child quit;
	nodus_error err;
	if (nodus_child_start(&quit, &o, &err) == 0) {
		ssize_t w = write(quit.in_fd, "quit\n", 5);
		(void)w;
		nodus_child_finish_timeout(&quit, 5000);
	}
}

static void remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char path[700];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR)
			remove_tree(path);
		else
			unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

/* An orchestrator killed by SIGKILL takes its control daemon along
 * (PDEATHSIG), but the MPS server that daemon started may live on. Every
 * private directory records its owner's pid; a directory whose owner is
 * gone is swept: its daemon is asked to quit and the directory removed. */
void nodus_mps_sweep_stale(void)
{
	DIR *d = opendir("/tmp");
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "nodus-mps-", 10) != 0)
			continue;
		char dir[300], owner[400], pipe_dir[400];
		snprintf(dir, sizeof(dir), "/tmp/%s", e->d_name);
		snprintf(owner, sizeof(owner), "%s/owner", dir);
		FILE *f = fopen(owner, "r");
		long pid = 0;
		if (f) {
			if (fscanf(f, "%ld", &pid) != 1)
				pid = 0;
			fclose(f);
		}
		if (pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM))
			continue; /* its orchestrator is alive */
		snprintf(pipe_dir, sizeof(pipe_dir), "%s/pipe", dir);
		if (control_socket_exists(pipe_dir))
			quit_daemon(pipe_dir);
		remove_tree(dir);
	}
	closedir(d);
}

int nodus_mps_start(nodus_mps *m, int active_thread_pct, nodus_error *err)
{
	nodus_mps_sweep_stale();
	memset(m, 0, sizeof(*m));
	if (active_thread_pct > 0)
		snprintf(m->thread_env, sizeof(m->thread_env), "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=%d",
			 active_thread_pct);
	const char *pipe = getenv("CUDA_MPS_PIPE_DIRECTORY");
	if (!pipe || !*pipe)
		pipe = "/tmp/nvidia-mps";
	if (control_socket_exists(pipe)) {
		m->existing = 1;
		snprintf(m->pipe_env, sizeof(m->pipe_env), "CUDA_MPS_PIPE_DIRECTORY=%s", pipe);
		const char *log = getenv("CUDA_MPS_LOG_DIRECTORY");
		snprintf(m->log_env, sizeof(m->log_env), "CUDA_MPS_LOG_DIRECTORY=%s",
			 log && *log ? log : "/var/log/nvidia-mps");
		return build_env(m) ? NODUS_ERR(err, NODUS_ENOMEM, "out of memory") : 0;
	}
	snprintf(m->dir, sizeof(m->dir), "/tmp/nodus-mps-XXXXXX");
	if (!mkdtemp(m->dir))
		return NODUS_ERR(err, NODUS_EIO, "cannot create an MPS directory: %s", strerror(errno));
	char pipe_dir[300], log_dir[300];
	snprintf(pipe_dir, sizeof(pipe_dir), "%s/pipe", m->dir);
	snprintf(log_dir, sizeof(log_dir), "%s/log", m->dir);
	mkdir(pipe_dir, 0700);
	mkdir(log_dir, 0700);
	char owner[300];
	snprintf(owner, sizeof(owner), "%s/owner", m->dir);
	FILE *f = fopen(owner, "w");
	if (f) {
		fprintf(f, "%ld\n", (long)getpid());
		fclose(f);
	}
	snprintf(m->pipe_env, sizeof(m->pipe_env), "CUDA_MPS_PIPE_DIRECTORY=%s", pipe_dir);
	snprintf(m->log_env, sizeof(m->log_env), "CUDA_MPS_LOG_DIRECTORY=%s", log_dir);
	if (build_env(m))
		return NODUS_ERR(err, NODUS_ENOMEM, "out of memory");
	const char *argv[] = {"nvidia-cuda-mps-control", "-f", NULL};
	nodus_child_opts o;
	memset(&o, 0, sizeof(o));
	o.argv = argv;
	o.env = (const char *const *)m->env;
	o.stdin_fd = -2;
	o.stdout_fd = -2;
	o.stderr_fd = -2;
	o.die_with_parent = 1;
	int rc = nodus_child_start(&m->daemon, &o, err);
	if (rc)
		return rc;
	m->started = 1;
	for (int i = 0; i < 100 && !control_socket_exists(pipe_dir); i++) {
		struct timespec ts = {0, 50 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	if (!control_socket_exists(pipe_dir)) {
		nodus_mps_stop(m);
		return NODUS_ERR(err, NODUS_EUNAVAILABLE,
				 "the MPS control daemon did not come up within 5 s");
	}
	return 0;
}

const char *const *nodus_mps_env(const nodus_mps *m)
{
	return (const char *const *)m->env;
}

json_t *nodus_mps_describe(const nodus_mps *m)
{
	return json_pack("{s:s,s:s,s:s}", "daemon", m->existing ? "existing" : "started by nodus",
			 "pipe", m->pipe_env + strlen("CUDA_MPS_PIPE_DIRECTORY="), "active_thread",
			 m->thread_env[0] ? m->thread_env : "unset");
}

void nodus_mps_stop(nodus_mps *m)
{
	if (m->started) {
		quit_daemon(m->pipe_env + strlen("CUDA_MPS_PIPE_DIRECTORY="));
		nodus_child_finish_timeout(&m->daemon, 5000);
		m->started = 0;
	}
	if (m->dir[0]) {
		remove_tree(m->dir);
		m->dir[0] = '\0';
	}
	free(m->env);
	m->env = NULL;
}
