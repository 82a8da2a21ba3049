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
 * argv and never a shell here (boot.ssh's one argument is read by the
 * machine's shell, below).  It boots; the real executor builds.
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
 * Boot methods kexec and grub-reboot run over boot.ssh, an argv given
 * one command string for the machine's shell (each of our words
 * single-quoted), and leave the machine up on its own system between
 * boots:
 *
 *   1. `ssh ... true` must succeed; if not, the machine is powered as in
 *      3 and it is tried every 3 s within boot_timeout_s, else the
 *      machine's failure;
 *   2. the kernel, initramfs (and Xen) are shipped as their stdin to
 *      /var/tmp/kbisect (kexec) or /boot/kbisect (grub-reboot) as
 *      kernel, initrd, xen (NAME.tmp, then mv); kexec -l loads them, or
 *      GRUB's entry 'kbisect' is written to /boot/grub/custom.cfg and
 *      chosen once by grub-reboot;
 *   3. kexec -e or reboot is started detached (its ssh may fail as the
 *      link drops: not counted); the console is read as in 4;
 *   4. after the boot the machine is powered up (it boots its default
 *      entry) and waited for as in 1: a failed boot's recovery, the
 *      machine's failure when it does not come back; after a good boot
 *      the samples count either way (the next boot's 1 fails instead).
 *
 * known_good is used by method command only.  kexec boots no Xen: a
 * kexec machine with factors that boot dom0 is refused at parse.
 * guest.image is given to method command only.
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
