# shellcheck shell=bash
# bench/lib-stap.sh - SystemTap 4.8 beside ktap: shared setup for the
# benchmarks in bench/. Sourced, not run.
#
# The caller sets:
#   BT   a private temp dir (everything made here goes under it)
#   HDR  /usr/src/linux-headers-ABI of the guest kernel
#   KVM  the provisioned guest kernel dir (${KTAP_CACHE}/vm/ABI)
#
# and gets:
#   stap_make_build_tree   $BT/build: a build tree for `stap -r`
#   stap_add_trace_headers the kernel's tracepoint headers in $BT/build,
#                          for stap's kernel.trace (after the above)
#   stap_make_runtime      $BT/runtime: a runtime for `stap -R`; sets
#                          RUNTIME_NOTE to say what was changed
#   stap_guest_files DIR   staprun, stapio and their libraries in DIR, with
#                          DIR/install.sh to put them in place in the guest
#   private_guest ABI      $BT/cache/vm: a ktap cache of its own that shares
#                          the provisioned kernel's big files (hard links),
#                          for KTAP_CACHE=$BT/cache

# stap's build tree: a copy of the headers (their scripts/tools links are
# relative and break in a copy), the debug vmlinux and a real System.map
# (the image's is a placeholder).
stap_make_build_tree() {
	local b=$BT/build l
	cp -a "$HDR" "$b" || return 1
	for l in "$b"/*; do
		[ -L "$l" ] || continue
		case $(readlink "$l") in /*) ;; *) ln -sfn "$(readlink -f "$HDR/${l##*/}")" "$l" ;; esac
	done
	# Debian 6.12's headers hold a BTF-only vmlinux: the debug one replaces it
	ln -sfn "$KVM/vmlinux" "$b/vmlinux" || return 1
	if [ -s "$KVM/System.map" ]; then
		cp "$KVM/System.map" "$b/System.map"
	else
		nm -n "$b/vmlinux" > "$b/System.map"
	fi
}

# stap finds tracepoints by compiling "tracequery" modules over the
# headers it globs under the build tree (include/trace/events/*.h,
# arch/x86/include/asm/trace/*.h, ...) or under the DWARF's comp_dir (a
# path on Debian's build machine). A Debian headers package keeps them in
# the -common tree only, so without links kernel.trace finds nothing
# ("resolution failed in tracepoint builder").
stap_add_trace_headers() {
	local b=$BT/build common
	common=$(sed -n 's|^include \(/.*\)/Makefile$|\1|p' "$HDR/Makefile")
	[ -n "$common" ] && [ -d "$common/include/trace/events" ] || return 0
	[ -e "$b/include/trace" ] || ln -s "$common/include/trace" "$b/include/trace" || return 1
	if [ -d "$common/arch/x86/include/asm/trace" ] && [ ! -e "$b/arch/x86/include/asm/trace" ]; then
		mkdir -p "$b/arch/x86/include/asm" &&
		ln -s "$common/arch/x86/include/asm/trace" "$b/arch/x86/include/asm/trace"
	fi
}

# stap's runtime: Linux 6.1.y renamed task_work_cancel (it now cancels one
# callback_head) to task_work_cancel_func; stap 4.8 builds with -Werror.
RUNTIME_NOTE="shipped runtime"
stap_make_runtime() {
	local rt=$BT/runtime common
	cp -a /usr/share/systemtap/runtime "$rt" || return 1
	common=$(sed -n 's|^include \(/.*\)/Makefile$|\1|p' "$HDR/Makefile")
	if grep -qs 'task_work_cancel_func' "${common:-$HDR}/include/linux/task_work.h" &&
	   grep -q 'typeof(&task_work_cancel)' "$rt/stp_task_work.c"; then
		sed -i 's/\btask_work_cancel\b/task_work_cancel_func/g' "$rt/stp_task_work.c"
		RUNTIME_NOTE="runtime copy with task_work_cancel -> task_work_cancel_func in stp_task_work.c"
	fi
}

# staprun for the guest (a busybox initramfs: no libc of its own): the two
# binaries, every library ldd lists for them, and the loader. In the guest,
# `sh DIR/install.sh` puts the loader in /lib64, the libraries in
# /lib/x86_64-linux-gnu and stapio where staprun looks for it; then call
# /usr/bin/staprun by its full path.
stap_guest_files() {	# DIR
	local d=$1 f
	mkdir -p "$d/lib" || return 1
	cp /usr/bin/staprun /usr/lib/systemtap/stapio "$d/" || return 1
	for f in $(ldd /usr/bin/staprun /usr/lib/systemtap/stapio |
			sed -n 's|.*=> \(/[^ ]*\) .*|\1|p; s|^[[:space:]]*\(/[^ ]*ld-linux[^ ]*\) .*|\1|p' |
			sort -u); do
		cp -L "$f" "$d/lib/" || return 1
	done
	[ -f "$d/lib/ld-linux-x86-64.so.2" ] || return 1
	cat > "$d/install.sh" <<-'EOF'
	# run in the guest: sh install.sh (from its own directory)
	d=$(cd "$(dirname "$0")" && pwd)
	mkdir -p /lib64 /lib/x86_64-linux-gnu /usr/bin /usr/lib/systemtap
	cp "$d"/lib/ld-linux-x86-64.so.2 /lib64/
	cp "$d"/lib/* /lib/x86_64-linux-gnu/
	cp "$d"/staprun /usr/bin/staprun
	cp "$d"/stapio /usr/lib/systemtap/stapio
	chmod 755 /usr/bin/staprun /usr/lib/systemtap/stapio /lib64/ld-linux-x86-64.so.2
	/usr/bin/staprun -V 2>&1 | head -n 1
	EOF
}

# a ktap cache of our own (KTAP_CACHE=$BT/cache), so that a guest someone
# else has running in the real cache is left alone: the kernel's big files
# are hard links (symlinks when the cache is on another file system), the
# initramfs and its stamp are copies (ktap may rebuild them in place).
private_guest() {	# ABI
	local v=$BT/cache/vm f
	mkdir -p "$v/$1" || return 1
	for f in "$KVM"/*; do
		case ${f##*/} in
		initramfs.cpio.gz|initramfs.cpio.gz.src) cp -p "$f" "$v/$1/" ;;
		*) cp -al "$f" "$v/$1/" 2>/dev/null || ln -s "$f" "$v/$1/${f##*/}" ;;
		esac || return 1
	done
	ln -s "$1" "$v/current"
}
