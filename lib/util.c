// SPDX-License-Identifier: Apache-2.0
/* Small helpers: errors, UUIDs, time, host identity, hashing. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

int famfs_set_err(struct famfs_err *e, int code, const char *fmt, ...)
{
	va_list ap;

	if (e) {
		e->code = code;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return code;
}

FAMFS_EXPORT bool famfs_name_reserved(const char *name)
{
	static const char *const reserved[] = { "rescan", "audit", "mkfs",
						"cancel" };

	for (size_t i = 0; i < ARRAY_SIZE(reserved); i++)
		if (!strcmp(name, reserved[i]))
			return true;
	return false;
}

FAMFS_EXPORT void famfs_uuid_generate(struct famfs_uuid *u)
{
	if (getrandom(u->b, sizeof(u->b), 0) != (ssize_t)sizeof(u->b)) {
		/* getrandom only fails before the pool is ready; mix time in */
		uint64_t t = famfs_now_ns() ^ (uint64_t)getpid() << 32;

		memcpy(u->b, &t, 8);
		t *= 0x9e3779b97f4a7c15ULL;
		memcpy(u->b + 8, &t, 8);
	}
	u->b[6] = (u->b[6] & 0x0f) | 0x40; /* version 4 */
	u->b[8] = (u->b[8] & 0x3f) | 0x80; /* variant 1 */
}

FAMFS_EXPORT void famfs_uuid_unparse(const struct famfs_uuid *u, char out[37])
{
	const uint8_t *b = u->b;

	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9],
		 b[10], b[11], b[12], b[13], b[14], b[15]);
}

FAMFS_EXPORT uint64_t famfs_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t famfs_fs_tag(const struct famfs_uuid *u)
{
	uint64_t t;

	memcpy(&t, u->b, 8);
	return t;
}

void famfs_host_default_name(char *buf, size_t len)
{
	if (gethostname(buf, len) != 0 || !buf[0])
		snprintf(buf, len, "localhost");
	buf[len - 1] = '\0';
}

/* The name eight bytes per step, seeded with the parent's inode number
 * and the length: replay hashes every path prefix and name, and FNV-1a's
 * byte-at-a-time multiply chain was the longer part of it. The low bits
 * pick the name table's home slot, so every step and the end fold the
 * high half (where a multiply puts its mixing) down. In memory only (name
 * table, parent cache), never on the device.
 */
static uint64_t load_tail(const uint8_t *p, size_t len)
{
	uint32_t a, b;

	if (len >= 4) {           /* 4-7 bytes: two overlapping words */
		memcpy(&a, p, 4);
		memcpy(&b, p + len - 4, 4);
		return (uint64_t)a | (uint64_t)b << 32;
	}
	return (uint64_t)p[0] | (uint64_t)p[len / 2] << 8 |
	       (uint64_t)p[len - 1] << 16;
}

uint32_t famfs_hash_name(const char *s, size_t len, uint64_t parent)
{
	const uint8_t *p = (const uint8_t *)s;
	uint64_t h = (parent + len) * 0x9e3779b97f4a7c15ULL, w;
	size_t n = len;

	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	if (n) {
		/* the last 1-7 bytes; with the length in the seed, these
		 * loads still tell any two names apart
		 */
		if (len >= 8) {
			memcpy(&w, p + n - 8, 8);
			w >>= 8 * (8 - n);
		} else {
			w = load_tail(p, n);
		}
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	h *= 0xc4ceb9fe1a85ec53ULL;
	return (uint32_t)(h ^ (h >> 32));
}

FAMFS_EXPORT int famfs_path_normalize(const char *in, char *out,
				      size_t outlen, struct famfs_err *e)
{
	size_t o = 0;
	const char *p = in;

	if (!in || !*in)
		return famfs_set_err(e, -EINVAL, "empty path");
	while (*p) {
		const char *c;
		size_t n;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		c = p;
		while (*p && *p != '/')
			p++;
		n = (size_t)(p - c);
		if (n > FAMFS_NAME_MAX)
			return famfs_set_err(e, -ENAMETOOLONG,
				"path component of %zu bytes in '%.60s...': the limit is %d",
				n, in, FAMFS_NAME_MAX);
		if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return famfs_set_err(e, -EINVAL,
				"path '%s' contains '.' or '..'", in);
		if (o + 1 + n > FAMFS_PATH_MAX || o + 1 + n + 1 > outlen)
			return famfs_set_err(e, -ENAMETOOLONG,
				"path '%.60s...' is longer than %d bytes", in,
				FAMFS_PATH_MAX);
		out[o++] = '/';
		memcpy(out + o, c, n);
		o += n;
	}
	if (o == 0) {
		if (outlen < 2)
			return famfs_set_err(e, -ENAMETOOLONG, "buffer too small");
		out[o++] = '/';
	}
	out[o] = '\0';
	return (int)o;
}

FAMFS_EXPORT bool famfs_path_is_normal(const char *p)
{
	if (p[0] != '/')
		return false;
	if (!p[1])
		return true;
	for (const char *c = p + 1;; ) {
		size_t n = strcspn(c, "/");

		if (!n || (n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		if (!c[n])
			return true;
		c += n + 1;
	}
}
