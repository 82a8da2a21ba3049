/*
 * The text of the two files of a repro folder (lib/evidence.h) that are
 * made rather than copied: boot.sh, which boots the domain once with
 * virsh and prints the metric the way kbisect reads it, and the README,
 * which says what the boot was and what each file is.
 */
#define _DEFAULT_SOURCE /* readlink */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "evidence_int.h"

#include "matrix.h"
#include "realexec.h"
#include "variant.h"
#include "banned.h"

/* ---- boot.sh ----------------------------------------------------------- */

void ev_sh_quote(struct kb_buf *b, const char *s)
{
	kb_buf_addch(b, '\'');
	for (; s && *s; s++) {
		if (*s == '\'')
			kb_buf_adds(b, "'\\''");
		else
			kb_buf_addch(b, *s);
	}
	kb_buf_addch(b, '\'');
}

void ev_sh_var(struct kb_buf *b, const char *name, const char *value)
{
	kb_buf_addf(b, "%s=", name);
	ev_sh_quote(b, value);
	kb_buf_addch(b, '\n');
}

/* The file name of @path (what follows its last slash), quoted for sh:
 * the files boot.sh makes are in its folder. */
static void sh_base(struct kb_buf *b, const char *path)
{
	const char *base = strrchr(path, '/');

	ev_sh_quote(b, base ? base + 1 : path);
}

void ev_measured(const struct kb_evidence *r, struct kb_buf *b)
{
	if (!r->sum.n) {
		kb_buf_addf(b, "%s: no ok boot measured it", r->info.metric);
		return;
	}
	kb_buf_addf(b, "%s %.6g", r->info.metric, r->sum.mean);
	if (r->sum.n > 1)
		kb_buf_addf(b, " +- %.3g", r->sum.stddev);
	kb_buf_addf(b, " over %zu boot%s (mean%s of the boot means, %u run%s per boot)",
		    r->sum.n, r->sum.n == 1 ? "" : "s",
		    r->sum.n > 1 ? " and sd" : "", r->info.runs_per_boot,
		    r->info.runs_per_boot == 1 ? "" : "s");
}

void ev_value_fn(const struct kb_evidence *r, struct kb_buf *b)
{
	const struct kb_workload *w = kb_matrix_workload(r->m);
	const char *m = r->info.metric;

	kb_buf_adds(b, "# value FILE: the metric in one run's payload, as kbisect reads it\n"
		       "value() {\n");
	if (w->kind != KB_WORKLOAD_COMMAND) {
		kb_buf_adds(b, "\t# fio's JSON: `kbisect fio-metrics` sums and weighs it over jobs\n"
			       "\t\"$kbisect\" fio-metrics \"$1\" 2>/dev/null |\n"
			       "\t\tawk -v m=\"$metric\" '$1 == m { print $2; exit }'\n"
			       "}\n");
		return;
	}
	if (!w->regex) {
		/* timed: "real 1.23", "user ...", "sys ..." */
		const char *key = !strcmp(m, "user_s")  ? "user"
				  : !strcmp(m, "sys_s") ? "sys"
							: "real";

		kb_buf_addf(b, "\tsed -n 's/^%s //p' \"$1\" | head -n 1\n}\n",
			    key);
		return;
	}
	/* the regex's group in the command's output (after "output N"),
	 * line by line where kbisect reads the whole output at once */
	kb_buf_adds(b, "\td=$(printf '\\001')\n"
		       "\tsed '1,/^output [0-9]*$/d' \"$1\" | grep -E -o -e \"$regex\" |\n"
		       "\t\thead -n 1 | sed -E \"s$d^($regex)\\$$d\\\\2$d\"\n"
		       "}\n");
}

/*
 * The libvirt URI boot.sh boots on without one given: the boot's host;
 * for a boot whose files were shipped into its host's pool, this
 * machine's (the files are here, not there), by the domain's type.
 */
static const char *default_uri(const struct kb_evidence *r)
{
	if (r->pool || !r->e.host)
		return r->moved.type && !strcmp(r->moved.type, "xen")
			       ? "xen:///system"
			       : "qemu:///system";
	return r->e.host;
}

/* The domain's paths were written for r->dir; boot.sh moves them when the
 * folder moved, where the paths are plain enough for sed. */
static int movable(const char *dir)
{
	return !strpbrk(dir, "&<>\"'#\\\n");
}

void ev_vars(const struct kb_evidence *r, struct kb_buf *b,
	     unsigned boot_timeout, const char *whose)
{
	const struct kb_workload *w = kb_matrix_workload(r->m);
	unsigned runs = r->info.runs_per_boot;
	char exe[PATH_MAX];
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	ev_sh_var(b, "metric", r->info.metric);
	ev_sh_var(b, "regex", w->kind == KB_WORKLOAD_COMMAND && w->regex
				   ? w->regex
				   : "");
	kb_buf_addf(b, "runs=%u\n"
		       "boot_timeout=%u      # s until the workload starts (%s)\n"
		       "workload_timeout=%u  # s for all its runs (workload.timeout_s)\n",
		    runs, boot_timeout, whose,
		    kb_realexec_workload_timeout(w, runs));
	kb_buf_adds(b, "kbisect=${KBISECT:-kbisect}\n"
		       "command -v \"$kbisect\" >/dev/null 2>&1 || kbisect=");
	ev_sh_quote(b, exe);
	kb_buf_addch(b, '\n');
}

void ev_boot_sh(const struct kb_evidence *r, struct kb_buf *b)
{
	const struct kb_workload *w = kb_matrix_workload(r->m);
	const struct kb_guest *g = kb_matrix_guest(r->m);
	size_t i;

	kb_buf_addf(b, "#!/bin/sh\n"
		       "# Boot variant #%u of kbisect experiment %lld once, as its boot %u\n"
		       "# booted (%s), and print its %s the way kbisect reads it.\n"
		       "# Written by `kbisect repro`: README says what each file is.\n"
		       "#\n"
		       "#   ./boot.sh [URI]\n"
		       "#\n"
		       "# URI: the libvirt host; default $LIBVIRT_DEFAULT_URI, else the host\n"
		       "# the boot ran on.  Exit status 0 when every run printed the metric.\n",
		    r->v->idx, (long long)r->exp, r->e.boot_no, r->e.status,
		    r->info.metric);
	if (r->pool)
		/* the host passed libvirt_uri(): printable, one line */
		kb_buf_addf(b, "#\n"
			       "# The boot ran on %s with its files shipped into its\n"
			       "# storage pool '%s'; this folder's files are on this machine, so\n"
			       "# it boots here (%s) unless given a URI, and a URI of\n"
			       "# another machine needs this folder there, at the same path.\n",
			    r->e.host, r->pool, default_uri(r));
	kb_buf_adds(b, "set -u\n"
		       "here=$(cd \"$(dirname \"$0\")\" && pwd -P) || exit 1\n"
		       "cd \"$here\" || exit 1\n");
	/* the URI quoted on a line of its own, not inside ${...} */
	ev_sh_var(b, "host", default_uri(r));
	kb_buf_adds(b, "uri=${1:-${LIBVIRT_DEFAULT_URI:-$host}}\n");
	ev_sh_var(b, "name", r->name);
	ev_sh_var(b, "written", movable(r->dir) ? r->dir : "");
	ev_vars(r, b, g->boot_timeout_s ? g->boot_timeout_s : 120,
		"guest.boot_timeout_s");
	kb_buf_adds(b, "\nsay() { echo \"boot.sh: $*\" >&2; }\n"
		       "running() { virsh -c \"$uri\" domstate \"$name\" >/dev/null 2>&1; }\n"
		       "stop() { ! running || virsh -c \"$uri\" destroy \"$name\" >/dev/null 2>&1; }\n"
		       "\n");
	ev_value_fn(r, b);
	kb_buf_adds(b, "\n# -- the domain, its paths pointed here when the folder moved\n"
		       "xml=domain.xml\n"
		       "if [ \"$here\" != \"$written\" ]; then\n"
		       "\tcase $here in\n"
		       "\t*[\\&\\<\\>\\\"\\'\\#\\\\]*) written= ;;\n"
		       "\tesac\n"
		       "\tif [ -z \"$written\" ]; then\n"
		       "\t\tsay \"the paths in domain.xml name another folder: edit them to name $here\"\n"
		       "\t\texit 1\n"
		       "\tfi\n"
		       "\tsed \"s#$(printf '%s' \"$written\" | sed 's/[].[*^$]/\\\\&/g')/#$here/#g\" \\\n"
		       "\t\tdomain.xml >domain.here.xml || exit 1\n"
		       "\txml=domain.here.xml\n"
		       "fi\n");
	if (r->moved.nscratch) {
		kb_buf_addf(b, "\n# -- a new scratch disk for the workload, as every boot gets\n");
		for (i = 0; i < r->moved.nscratch; i++) {
			struct kb_buf q = KB_BUF_INIT;

			sh_base(&q, r->moved.scratch[i]);
			kb_buf_addf(b, "rm -f %s\n"
				       "fallocate -l %llu %s 2>/dev/null ||\n"
				       "\ttruncate -s %llu %s || exit 1\n",
				    q.buf, kb_realexec_scratch_bytes(w), q.buf,
				    kb_realexec_scratch_bytes(w), q.buf);
			kb_buf_release(&q);
		}
	}
	for (i = 0; i < r->moved.noverlays; i++) {
		struct kb_buf q = KB_BUF_INIT;

		sh_base(&q, r->moved.overlays[i]);
		kb_buf_addf(b, "\n# -- the root disk (guest.image): a new overlay over root.img,\n"
			       "# which the boot never changes\n"
			       "rm -f %s\n"
			       "qemu-img create -q -f qcow2 -F raw -b \"$here/root.img\" %s || exit 1\n",
			    q.buf, q.buf);
		kb_buf_release(&q);
	}
	kb_buf_adds(b, "\n# -- boot once; the guest powers itself off when its runs are done\n"
		       "rm -f console.log run-*.out run-*.json\n"
		       "trap 'stop; exit 130' INT\n"
		       "trap 'stop; exit 143' TERM\n");
	if (r->moved.console_log) {
		kb_buf_adds(b, "virsh -c \"$uri\" create \"$xml\" >/dev/null || exit 1\n"
			       "say \"$name started on $uri; its console goes to $here/console.log\"\n"
			       "t=0 started=\n"
			       "while running; do\n"
			       "\tif [ -z \"$started\" ] && grep -q '^KBISECT-START' console.log 2>/dev/null; then\n"
			       "\t\tstarted=$t\n"
			       "\tfi\n"
			       "\tif [ -z \"$started\" ] && [ $t -ge $boot_timeout ]; then\n"
			       "\t\tsay \"no workload after $boot_timeout s: destroying $name\"\n"
			       "\t\tstop\n"
			       "\telif [ -n \"$started\" ] && [ $((t - started)) -ge $workload_timeout ]; then\n"
			       "\t\tsay \"the workload ran over $workload_timeout s: destroying $name\"\n"
			       "\t\tstop\n"
			       "\tfi\n"
			       "\tsleep 1\n"
			       "\tt=$((t + 1))\n"
			       "done\n");
	} else {
		kb_buf_adds(b, "# a Xen PV or PVH console is a pty: virsh console reads it\n"
			       "[ -t 0 ] || { say \"this guest's console is a pty: run boot.sh in a terminal\"; exit 1; }\n"
			       "virsh -c \"$uri\" create \"$xml\" --console | tee console.log\n"
			       "stop\n");
	}
	kb_buf_addf(b, "running && { say \"$name is still there\"; exit 1; }\n"
		       "say \"$name is gone\"\n");
	for (i = 0; i < r->moved.nscratch + r->moved.noverlays; i++) {
		const char *f = i < r->moved.nscratch
					? r->moved.scratch[i]
					: r->moved.overlays[i - r->moved.nscratch];

		kb_buf_adds(b, "rm -f ");
		sh_base(b, f);
		kb_buf_addch(b, '\n');
	}
	ev_results(r, b);
	kb_buf_adds(b, "\nexit $status\n");
}

void ev_results(const struct kb_evidence *r, struct kb_buf *b)
{
	int fio = kb_matrix_workload(r->m)->kind != KB_WORKLOAD_COMMAND;

	kb_buf_addf(b, "\n# -- the result frames (docs/guests.md): KBISECT-BEGIN RUN LEN CRC,\n"
		       "# the payload, KBISECT-END RUN; one per run\n"
		       "tr -d '\\r' <console.log | awk -v ext=%s '\n"
		       "\t/^KBISECT-BEGIN / { f = \"run-\" $2 \".\" ext; printf \"\" > f; in_frame = 1; next }\n"
		       "\t/^KBISECT-END / { if (in_frame) close(f); in_frame = 0; next }\n"
		       "\tin_frame { print > f }'\n"
		       "status=0\n"
		       "if grep -q 'Kernel panic - not syncing' console.log; then\n"
		       "\tsay \"the kernel panicked: see console.log\"\n"
		       "\tstatus=1\n"
		       "fi\n"
		       "if grep '^KBISECT-ERROR' console.log >&2; then status=1; fi\n"
		       "grep -q '^KBISECT-DONE' console.log || {\n"
		       "\tsay \"the guest did not finish its runs: see console.log\"\n"
		       "\tstatus=1\n"
		       "}\n"
		       "values=\n"
		       "r=1\n"
		       "while [ $r -le $runs ]; do\n"
		       "\tf=run-$r.%s\n"
		       "\tv=\n"
		       "\t[ -s \"$f\" ] && v=$(value \"$f\")\n"
		       "\tif [ -n \"$v\" ]; then\n"
		       "\t\techo \"run $r: $metric $v\"\n"
		       "\t\tvalues=\"$values $v\"\n"
		       "\telse\n"
		       "\t\tsay \"run $r: no $metric (payload: $f)\"\n"
		       "\t\tstatus=1\n"
		       "\tfi\n"
		       "\tr=$((r + 1))\n"
		       "done\n"
		       "if [ -n \"$values\" ]; then\n"
		       "\techo \"$values\" | awk -v m=\"$metric\" '{ for (i = 1; i <= NF; i++) s += $i;\n"
		       "\t\tprintf \"%%s %%.6g (the mean of %%d run%%s: the boot'\\''s value, as kbisect stores it)\\n\", m, s / NF, NF, NF == 1 ? \"\" : \"s\" }'\n"
		       "fi\n",
		    fio ? "json" : "out", fio ? "json" : "out");
	kb_buf_adds(b, "echo ");
	{
		struct kb_buf line = KB_BUF_INIT;

		kb_buf_adds(&line, "kbisect measured ");
		ev_measured(r, &line);
		ev_sh_quote(b, line.buf);
		kb_buf_release(&line);
	}
}

/* ---- README ------------------------------------------------------------ */

void ev_template_note(const struct kb_evidence *r, struct kb_buf *b)
{
	if (r->template_workload)
		kb_buf_adds(b, "The variant is not in the plan of the experiment's matrix: the\n"
			       "initramfs runs the matrix's copies and sysctls, which need not be\n"
			       "those the boot ran with.\n\n");
}

void ev_readme(const struct kb_evidence *r, struct kb_buf *b)
{
	const struct kb_workload *w = kb_matrix_workload(r->m);
	struct kb_metric_dir dir = kb_metric_direction(w, r->info.metric);
	int fio = w->kind != KB_WORKLOAD_COMMAND;
	size_t i;

	kb_buf_addf(b, "kbisect repro: experiment %lld \"%s\", variant #%u\n"
		       "==========================================================\n\n"
		       "Boot %u of this variant (status %s%s%s), as kbisect booted it, ready\n"
		       "to boot once more by hand:\n\n"
		       "    ./boot.sh [URI]\n\n"
		       "It prints %s for each of the %u run%s and their mean.\n\n",
		    (long long)r->exp, r->info.name, r->v->idx, r->e.boot_no,
		    r->e.status, r->e.reason ? ": " : "",
		    r->e.reason ? r->e.reason : "", r->info.metric,
		    r->info.runs_per_boot,
		    r->info.runs_per_boot == 1 ? "" : "s");
	kb_buf_adds(b, "Measured by kbisect: ");
	ev_measured(r, b);
	kb_buf_addf(b, ".\n%s: %s.\n\n", r->info.metric,
		    kb_metric_dir_text(&dir));
	kb_buf_addf(b, "Experiment  %lld \"%s\", %s design, %s executor, created %s\n"
		       "Variant     #%u %s\n",
		    (long long)r->exp, r->info.name,
		    r->info.design ? r->info.design : "?",
		    r->info.executor ? r->info.executor : "?",
		    r->info.created_at ? r->info.created_at : "?", r->v->idx,
		    r->v->label ? r->v->label : "");
	if (r->pv) {
		kb_buf_adds(b, "Settings   ");
		for (i = 0; i < r->pv->nsettings; i++)
			kb_buf_addf(b, " %s=%s", r->pv->settings[i].name,
				    r->pv->settings[i].value);
		kb_buf_adds(b, r->pv->nsettings ? "\n" : " (the matrix's own)\n");
	}
	kb_buf_addf(b, "Repeat      %u boots x %u runs per boot\n"
		       "Build key   %s\n"
		       "Kernel      %s\n"
		       "            sha256 %s%s\n"
		       "Host        %s (domain type %s)\n"
		       "Workload    %s, metric %s\n\n",
		    r->info.boots, r->info.runs_per_boot,
		    r->e.build_key ? r->e.build_key : "-", r->e.image,
		    r->kernel_sha,
		    r->sha_checked ? " (checked against the build's record)"
				   : " (not checked: the build recorded none)",
		    r->e.host ? r->e.host : "-",
		    r->moved.type ? r->moved.type : "?",
		    fio ? "fio" : "command", r->info.metric);
	if (r->pool)
		kb_buf_addf(b, "The boot ran on %s, its kernel, initramfs and disks shipped\n"
			       "into that host's storage pool '%s'.  This folder cannot carry\n"
			       "that pool: it boots on this machine, %s, unless\n"
			       "boot.sh is given a URI (a URI of another machine needs this\n"
			       "folder there, at the same path).\n\n",
			    r->e.host, r->pool, default_uri(r));
	ev_template_note(r, b);
	kb_buf_adds(b, "Files\n-----\n\n");
	kb_buf_adds(b, "boot.sh       boots domain.xml once with `virsh create`, waits until the\n"
		       "              guest is gone (it powers off after its runs; boot.sh\n"
		       "              destroys it at the timeouts), then prints the metric of\n"
		       "              each run from the result frames on its console\n"
		       "              (KBISECT-BEGIN RUN LEN CRC, payload, KBISECT-END RUN)\n");
	kb_buf_addf(b, "domain.xml    the libvirt domain the boot created, its kernel,\n"
		       "              initramfs, console log and scratch disk moved into this\n"
		       "              folder, named %s\n",
		    r->name);
	kb_buf_adds(b, "kernel        the kernel image booted\n"
		       "initrd        the initramfs, made again from the stored workload:\n"
		       "              busybox, /init (kbisect's guests/init), the workload");
	kb_buf_adds(b, fio ? ",\n              fio and its libraries\n" : "\n");
	if (r->e.config_text)
		kb_buf_adds(b, "config        the .config the kernel was built from\n");
	kb_buf_adds(b, "cmdline       the kernel command line (also in domain.xml)\n");
	if (fio)
		kb_buf_adds(b, "workload.fio  the fio job file the guest runs (fio --output-format=json;\n"
			       "              filename=${KBISECT_DISKS} names its virtio disks)\n");
	else
		kb_buf_adds(b, "workload.sh   the command the guest runs, with sh, timed\n");
	kb_buf_adds(b, "console.log   written by boot.sh: the guest's console\n");
	if (fio)
		kb_buf_adds(b, "run-N.json    written by boot.sh: fio's output of run N\n");
	else
		kb_buf_adds(b, "run-N.out     written by boot.sh: run N's result (exit, times, output)\n");
	if (r->moved.nscratch)
		kb_buf_addf(b, "scratch.raw   made by boot.sh before the boot (%llu bytes), removed after\n",
			    kb_realexec_scratch_bytes(w));
	if (r->moved.noverlays)
		kb_buf_adds(b, "root.img      the guest image (guest.image), never written\n"
			       "root.qcow2    made by boot.sh over root.img before the boot: the\n"
			       "              boot's writes; removed after\n");
	if (w->kind == KB_WORKLOAD_COMMAND && w->regex)
		kb_buf_addf(b, "\nThe metric is the number the regex (%s) takes from the\n"
			       "command's output; boot.sh applies it line by line (grep -E).\n",
			    w->regex);
	kb_buf_adds(b, "\nboot.sh takes the libvirt URI as its argument, else\n"
		       "$LIBVIRT_DEFAULT_URI, else the host the boot ran on.  The hypervisor's\n"
		       "user must be able to read this folder.  Moved elsewhere, boot.sh points\n"
		       "domain.xml's paths at the new place (domain.here.xml).\n");
}

