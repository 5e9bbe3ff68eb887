// SPDX-License-Identifier: Apache-2.0
/* Signal state and cgroup of the servers famfsd spawns (spawn.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>

#include "mounts/spawn.h"

/* The kernel's struct sigaction for rt_sigaction(2), which differs from
 * glibc's. */
struct kernel_sigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

void spawn_reset_signals(void)
{
	struct kernel_sigaction dfl = { .handler = SIG_DFL };
	unsigned long none = 0;

	/* The raw call, not sigaction(): glibc refuses signals 32 and 33 (its
	 * own), yet an ignored one is inherited from whoever started famfsd
	 * and would pass on across exec.
	 */
	for (int s = 1; s <= 64; s++)   /* SIGKILL, SIGSTOP: EINVAL */
		syscall(SYS_rt_sigaction, s, &dfl, NULL, sizeof(dfl.mask));
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, sizeof(none));
}

/* famfsd runs as root; without dbus-daemon (minimal hosts) systemd still
 * answers root on its private socket, as systemctl does.
 */
static int open_manager_bus(sd_bus **bus)
{
	int r = sd_bus_open_system(bus);

	if (r >= 0)
		return 0;
	r = sd_bus_new(bus);
	if (r < 0)
		return r;
	r = sd_bus_set_address(*bus, "unix:path=/run/systemd/private");
	if (r >= 0)
		r = sd_bus_start(*bus);
	if (r < 0) {
		sd_bus_unref(*bus);
		*bus = NULL;
	}
	return r;
}

/* Unit names take [A-Za-z0-9:_.\-]; mount names are [A-Za-z0-9._-]. */
static void unit_name(char *buf, size_t len, const char *name, pid_t pid)
{
	int n = snprintf(buf, len, "famfs-fused-");

	for (const char *s = name; *s && n + 16 < (int)len; s++)
		buf[n++] = (strchr(":_.-", *s) || (*s >= '0' && *s <= '9') ||
			    (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z'))
			   ? *s : '_';
	snprintf(buf + n, len - n, "-%d.scope", (int)pid);
}

int spawn_own_scope(pid_t pid, const char *name, char *err, size_t errlen)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	char unit[256], desc[300];
	sd_bus *bus = NULL;
	int r;

	if (sd_booted() <= 0) {
		snprintf(err, errlen, "not booted with systemd");
		return -ENOSYS;
	}
	r = open_manager_bus(&bus);
	if (r < 0) {
		snprintf(err, errlen, "cannot reach systemd: %s", strerror(-r));
		return r;
	}
	unit_name(unit, sizeof(unit), name, pid);
	snprintf(desc, sizeof(desc), "famfs-fused for famfsd mount %s", name);
	r = sd_bus_call_method(bus, "org.freedesktop.systemd1",
		"/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager",
		"StartTransientUnit", &e, &reply, "ssa(sv)a(sa(sv))",
		unit, "fail", 3,
		"PIDs", "au", 1, (uint32_t)pid,
		"Description", "s", desc,
		"CollectMode", "s", "inactive-or-failed",
		0);
	if (r < 0)
		snprintf(err, errlen, "StartTransientUnit %s: %s", unit,
			 e.message ? e.message : strerror(-r));
	sd_bus_error_free(&e);
	sd_bus_message_unref(reply);
	sd_bus_flush_close_unref(bus);
	return r < 0 ? r : 0;
}
