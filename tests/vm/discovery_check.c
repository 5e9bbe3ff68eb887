// SPDX-License-Identifier: Apache-2.0
/*
 * famfs-vmdiscover: compare famfsd's discovery with ndctl's own tools, in
 * the same guest, field by field.
 *
 *   famfs-vmdiscover FAMFSD.json CXL.json DAXCTL.json NDCTL.json
 *
 * FAMFSD.json is `famfs-cli get topology -o json` (GET
 * /v1/devices?topology=1); CXL.json `cxl list -M -D -R -u`, DAXCTL.json
 * `daxctl list`, NDCTL.json `ndctl list -N`. Every object the tools list
 * (memdevs, decoders, regions, DAX devices, namespaces) must be in
 * famfsd's report under the same name, every field famfsd reports must be
 * in the tool's object with the same value (the tools' -u strings, hex
 * and "512.00 MiB (536.87 MB)", are compared by rendering famfsd's number
 * the same way), and a set of fields per kind must be there. Then every
 * DAX device and every namespace with a block device must be one of
 * famfsd's /v1/devices with the same name, path, size, identity and
 * state, a wrong mode unusable with a reason that says what to run.
 * Prints every comparison; exit 0 when all agree, 1 on any disagreement,
 * 2 on bad input.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

enum kind { K_MEMDEV, K_DECODER, K_REGION, K_DAX, K_NS, K_N };

static const struct {
	const char *topo;      /* array in famfsd's topology.cxl */
	const char *id;        /* the identity field */
	const char *required[8];
} kinds[K_N] = {
	[K_MEMDEV] = { "memdevs", "memdev",
		       { "memdev", "serial", "host", "pmem_size" } },
	[K_DECODER] = { "decoders", "decoder",
			{ "decoder", "resource", "size", "interleave_ways" } },
	[K_REGION] = { "regions", "region",
		       { "region", "resource", "size", "interleave_ways",
			 "interleave_granularity", "decode_state", "type" } },
	[K_DAX] = { "dax_devices", "chardev",
		    { "chardev", "size", "align", "mode" } },
	[K_NS] = { "namespaces", "dev", { "dev", "mode", "size" } },
};

struct objs {
	json_object *o[64];
	int n;
};

static int fields, mismatches;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("MISMATCH ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	mismatches++;
}

static const char *jstr(json_object *o, const char *k)
{
	json_object *v;

	return json_object_object_get_ex(o, k, &v) ? json_object_get_string(v)
						   : NULL;
}

/* Which kind a tool's JSON object is, or -1 (containers, mappings). */
static int classify(json_object *o)
{
	bool has_pos = json_object_object_get_ex(o, "position", NULL);

	if (has_pos)
		return -1;
	/* first: ndctl lists a devdax namespace with its "chardev" */
	if (json_object_object_get_ex(o, "dev", NULL) &&
	    json_object_object_get_ex(o, "mode", NULL))
		return K_NS;
	if (json_object_object_get_ex(o, "decoder", NULL) &&
	    json_object_object_get_ex(o, "size", NULL))
		return K_DECODER;
	if (json_object_object_get_ex(o, "memdev", NULL) &&
	    json_object_object_get_ex(o, "serial", NULL))
		return K_MEMDEV;
	if (json_object_object_get_ex(o, "region", NULL) &&
	    json_object_object_get_ex(o, "size", NULL))
		return K_REGION;
	if (json_object_object_get_ex(o, "chardev", NULL) &&
	    json_object_object_get_ex(o, "size", NULL))
		return K_DAX;
	return -1;
}

static void collect(json_object *j, struct objs *out)
{
	if (json_object_is_type(j, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(j); i++)
			collect(json_object_array_get_idx(j, i), out);
		return;
	}
	if (!json_object_is_type(j, json_type_object))
		return;
	int k = classify(j);

	if (k >= 0 && out[k].n < 64)
		out[k].o[out[k].n++] = j;
	json_object_object_foreach(j, key, val) {
		(void)key;
		collect(val, out);
	}
}

/* ndctl's human size ("-u"): util/json.c display_size(). */
static void human_size(unsigned long long b, char *buf, size_t len)
{
	int c;

	if (b < 5000ULL * 1024) {
		snprintf(buf, len, "%llu", b);
		return;
	}
	if (b < 2ULL << 30) {
		long cm = (long)((b * 200 / (1ULL << 20) + 1) / 2);
		long cd = (long)((b / (1000000ULL / 200) + 1) / 2);

		c = snprintf(buf, len, "%ld.%02ld MiB", cm / 100, cm % 100);
		snprintf(buf + c, len - (size_t)c, " (%ld.%02ld MB)", cd / 100,
			 cd % 100);
	} else {
		long cm = (long)((b * 200 / (1ULL << 30) + 1) / 2);
		long cd = (long)((b / (1000000000ULL / 200) + 1) / 2);

		c = snprintf(buf, len, "%ld.%02ld GiB", cm / 100, cm % 100);
		snprintf(buf + c, len - (size_t)c, " (%ld.%02ld GB)", cd / 100,
			 cd % 100);
	}
}

static bool value_eq(json_object *ref, json_object *ours)
{
	enum json_type rt = json_object_get_type(ref);
	enum json_type ot = json_object_get_type(ours);

	if (rt == json_type_int && ot == json_type_int)
		return json_object_get_int64(ref) == json_object_get_int64(ours);
	if (rt == json_type_boolean && ot == json_type_boolean)
		return json_object_get_boolean(ref) ==
		       json_object_get_boolean(ours);
	if (rt == json_type_string && ot == json_type_string)
		return !strcmp(json_object_get_string(ref),
			       json_object_get_string(ours));
	if (rt == json_type_string && ot == json_type_int) {
		const char *s = json_object_get_string(ref);
		unsigned long long v = (unsigned long long)
			json_object_get_int64(ours);
		char buf[64], *end;

		if (strchr(s, ' ')) {  /* a -u size */
			human_size(v, buf, sizeof(buf));
			return !strcmp(s, buf);
		}
		return strtoull(s, &end, 0) == v && *s && !*end; /* -u hex */
	}
	return false;
}

static json_object *find_by(struct objs *set, const char *idkey,
			    const char *id)
{
	for (int i = 0; i < set->n; i++) {
		const char *v = jstr(set->o[i], idkey);

		if (v && !strcmp(v, id))
			return set->o[i];
	}
	return NULL;
}

/*
 * A field famfsd derives that the tool's object does not carry: a
 * region's "type" is what cxl list shows as the "mode" of the endpoint
 * decoders that map it. NULL when there is no such rule.
 */
static json_object *derived(int k, const char *id, const char *key,
			    struct objs *all)
{
	if (k != K_REGION || strcmp(key, "type"))
		return NULL;
	for (int i = 0; i < all[K_DECODER].n; i++) {
		json_object *d = all[K_DECODER].o[i], *mode;
		const char *r = jstr(d, "region");

		if (r && !strcmp(r, id) &&
		    json_object_object_get_ex(d, "mode", &mode))
			return mode;
	}
	return NULL;
}

static void compare_kind(int k, struct objs *all, json_object *topo)
{
	struct objs *ref = &all[k];
	json_object *arr;
	struct objs ours = { .n = 0 };
	const char *idk = kinds[k].id;

	if (!json_object_object_get_ex(topo, kinds[k].topo, &arr) ||
	    !json_object_is_type(arr, json_type_array)) {
		fail("famfsd's topology has no %s array", kinds[k].topo);
		return;
	}
	for (size_t i = 0; i < json_object_array_length(arr) && i < 64; i++)
		ours.o[ours.n++] = json_object_array_get_idx(arr, i);
	if (ref->n == 0)
		fail("%s: the reference tools list none (nothing to compare)",
		     kinds[k].topo);
	if (ours.n != ref->n)
		fail("%s: famfsd reports %d, the tools list %d", kinds[k].topo,
		     ours.n, ref->n);
	for (int i = 0; i < ref->n; i++) {
		const char *id = jstr(ref->o[i], idk);
		json_object *o = id ? find_by(&ours, idk, id) : NULL;

		if (!o) {
			fail("%s %s: listed by the tools, not by famfsd",
			     kinds[k].topo, id ? id : "?");
			continue;
		}
		for (int r = 0; r < 8 && kinds[k].required[r]; r++)
			if (!json_object_object_get_ex(o, kinds[k].required[r],
						       NULL))
				fail("%s %s: famfsd does not report '%s'",
				     kinds[k].topo, id, kinds[k].required[r]);
		json_object_object_foreach(o, key, val) {
			json_object *rv;

			fields++;
			if (!json_object_object_get_ex(ref->o[i], key, &rv) &&
			    !(rv = derived(k, id, key, all))) {
				fail("%s %s: famfsd reports '%s' = %s, the "
				     "tools have no such field", kinds[k].topo,
				     id, key, json_object_get_string(val));
				continue;
			}
			if (!value_eq(rv, val)) {
				fail("%s %s: '%s' famfsd %s, tools %s",
				     kinds[k].topo, id, key,
				     json_object_get_string(val),
				     json_object_get_string(rv));
				continue;
			}
			printf("ok %s %s %s = %s\n", kinds[k].topo, id, key,
			       json_object_get_string(rv));
		}
	}
	for (int i = 0; i < ours.n; i++) {
		const char *id = jstr(ours.o[i], idk);

		if (!id || !find_by(ref, idk, id))
			fail("%s %s: reported by famfsd, not by the tools",
			     kinds[k].topo, id ? id : "?");
	}
}

static unsigned long long ref_size(json_object *o, const char *k)
{
	json_object *v;

	if (!json_object_object_get_ex(o, k, &v))
		return 0;
	return (unsigned long long)json_object_get_int64(v);
}

/* One /v1/devices item against the DAX device or namespace it stands for. */
static void check_device(json_object *items, const char *name,
			 unsigned long long size, const char *uuid,
			 bool usable, const char *what)
{
	char path[128];
	json_object *it = NULL;

	for (size_t i = 0; i < json_object_array_length(items); i++) {
		json_object *o = json_object_array_get_idx(items, i);
		const char *n = jstr(o, "name");

		if (n && !strcmp(n, name))
			it = o;
	}
	if (!it) {
		fail("devices %s (%s): not in famfsd's /v1/devices", name,
		     what);
		return;
	}
	snprintf(path, sizeof(path), "/dev/%s", name);
	fields += 5;
	if (strcmp(jstr(it, "provider") ? jstr(it, "provider") : "", "cxl"))
		fail("devices %s: provider %s, want cxl", name,
		     jstr(it, "provider"));
	if (strcmp(jstr(it, "path") ? jstr(it, "path") : "", path))
		fail("devices %s: path %s, want %s", name, jstr(it, "path"),
		     path);
	if (ref_size(it, "size") != size)
		fail("devices %s: size %llu, %s says %llu", name,
		     ref_size(it, "size"), what, size);
	if (uuid && strcmp(jstr(it, "uuid") ? jstr(it, "uuid") : "", uuid))
		fail("devices %s: uuid %s, %s says %s", name,
		     jstr(it, "uuid"), what, uuid);
	if (strcmp(jstr(it, "state") ? jstr(it, "state") : "",
		   usable ? "online" : "unusable"))
		fail("devices %s: state %s, want %s (%s)", name,
		     jstr(it, "state"), usable ? "online" : "unusable", what);
	if (!usable && !strstr(jstr(it, "reason") ? jstr(it, "reason") : "",
			       "run '"))
		fail("devices %s: unusable without a reason that says what "
		     "to run: '%s'", name, jstr(it, "reason"));
	printf("ok devices %s: %s, size %llu, %s%s%s\n", name, what, size,
	       jstr(it, "state"), usable ? "" : ": ",
	       usable ? "" : jstr(it, "reason"));
}

static void compare_devices(json_object *items, struct objs *ref)
{
	int n = 0;

	for (int i = 0; i < ref[K_DAX].n; i++) {
		json_object *o = ref[K_DAX].o[i];
		const char *mode = jstr(o, "mode");
		bool usable = mode && !strcmp(mode, "devdax") &&
			      !jstr(o, "state");

		check_device(items, jstr(o, "chardev"), ref_size(o, "size"),
			     NULL, usable, mode ? mode : "dax");
		n++;
	}
	for (int i = 0; i < ref[K_NS].n; i++) {
		json_object *o = ref[K_NS].o[i];
		const char *mode = jstr(o, "mode"), *bdev = jstr(o, "blockdev");
		char what[96];

		if (!bdev || !mode || !strcmp(mode, "devdax"))
			continue;   /* devdax: its DAX device is the device */
		snprintf(what, sizeof(what), "%s %s", jstr(o, "dev"), mode);
		check_device(items, bdev, ref_size(o, "size"), jstr(o, "uuid"),
			     !strcmp(mode, "fsdax") && !jstr(o, "state"), what);
		n++;
	}
	if (!n)
		fail("devices: the tools list no DAX device or namespace");
	int cxl = 0;

	for (size_t i = 0; i < json_object_array_length(items); i++) {
		const char *p = jstr(json_object_array_get_idx(items, i),
				     "provider");

		cxl += p && !strcmp(p, "cxl");
	}
	if (cxl != n)
		fail("devices: famfsd has %d cxl devices, the tools %d", cxl, n);
}

int main(int argc, char **argv)
{
	struct objs ref[K_N] = { { .n = 0 } };
	json_object *fd, *items, *topo, *cxl;

	if (argc != 5) {
		fprintf(stderr, "usage: famfs-vmdiscover FAMFSD.json CXL.json "
			"DAXCTL.json NDCTL.json\n");
		return 2;
	}
	fd = json_object_from_file(argv[1]);
	if (!fd || !json_object_object_get_ex(fd, "items", &items) ||
	    !json_object_object_get_ex(fd, "topology", &topo) ||
	    !json_object_object_get_ex(topo, "cxl", &cxl)) {
		fprintf(stderr, "%s: not famfsd's devices with a cxl "
			"topology\n", argv[1]);
		return 2;
	}
	for (int i = 2; i < 5; i++) {
		json_object *j = json_object_from_file(argv[i]);

		if (!j) {
			fprintf(stderr, "%s: not JSON\n", argv[i]);
			return 2;
		}
		collect(j, ref);
		/* ref keeps pointers into j: it lives until exit */
	}
	for (int k = 0; k < K_N; k++)
		compare_kind(k, ref, cxl);
	compare_devices(items, ref);
	printf("%d fields compared, %d disagree\n", fields, mismatches);
	return mismatches ? 1 : 0;
}
