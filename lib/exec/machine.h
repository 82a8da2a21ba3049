#ifndef KB_MACHINE_H
#define KB_MACHINE_H

struct kb_err;
struct kb_executor;
struct kb_machine;
struct kb_matrix;
struct kb_realexec_opts;

/*
 * The machine executor, named "machine": a host that is a whole machine
 * (lib/matrix.h, hosts[].machine; docs/machines.md), booted into each
 * variant's kernel through the matrix's own commands, each run with an
 * argv and never a shell.  It boots; the real executor builds.
 *
 * A boot, with the machine's lock held (machlock.h) throughout:
 *
 *   1. console: the console command starts, its output read as the
 *      serial line (console.h's frames), and runs to the boot's end;
 *   2. choose: boot.command is run with "--kernel K --initrd I
 *      --cmdline C" appended (and "--root IMAGE" with guest.image):
 *      the variant's kernel, kbisect's initramfs for its workload, and
 *      "console=ttyS0,115200 panic=-1" and the variant's cmdline.*
 *      text; it chooses the machine's next boot and starts nothing;
 *   3. power: off then on (power.off and power.on), else power.cycle;
 *   4. read: the console until /init's DONE, a panic or bad output;
 *      machine.boot_timeout_s until the workload starts, then the
 *      workload's timeout (kb_realexec_workload_timeout());
 *   5. the machine is powered off (power.off, when it has one).
 *
 * A boot that did not reach DONE (a hang, a panic, a boot that never
 * started the workload) is the variant's failure, as a guest's is, once
 * the machine is back: it is chosen into known_good and powered as in 3,
 * and is back when the console shows known_good.ready ("login:").  A
 * machine that does not come back within boot_timeout_s, a command that
 * fails or runs over its 300 s, or a console command that ends, is the
 * machine's failure: a negative return (KB_EFAIL), which the engine
 * counts against the host (drained after a few), nothing stored.
 *
 * Only boot.method "command" is run; kexec and grub-reboot are refused
 * before anything boots (kb_matrix_check_runnable_hosts()).
 */

/*
 * Make the executor for machine @mc of matrix @m; both borrowed.  From
 * @ro (may be NULL) it takes initramfs, initramfs_cache, image_cache,
 * stop, and image_note with build_arg, told when a boot waits for the
 * machine.  Returns 0 with *@out (kb_executor_free() frees it).
 */
int kb_machine_exec_new(const struct kb_matrix *m, const struct kb_machine *mc,
			const struct kb_realexec_opts *ro,
			struct kb_executor **out, struct kb_err *err);

#endif
