# bash completion for ktap and ktap-flamegraph; installed as
# share/bash-completion/completions/ktap (and a ktap-flamegraph link).
#
# Everything that changes with ktap is asked of the ktap being completed:
# its options from --help, the tapset probe aliases from
# --dump-probe-aliases, system calls, kernel functions and tracepoints
# from -l (with --vm when the command line has it), so the completion
# stays true to the installed version.

# the options `ktap --help` lists, each once (a line may name another)
_ktap_options()
{
	"$1" --help 2>/dev/null |
		sed -n 's/^ *\(-[^ ].*\)$/\1/p' | grep -oE -- '--?[A-Za-z][-A-Za-z]*' |
		awk '!seen[$0]++'
}

# probe points starting with $2: tapset aliases and probe families; the
# functions, tracepoints and system calls of the target kernel
_ktap_points()
{
	local ktap=$1 cur=$2 vm=$3 pat
	case $cur in
	kernel.function\(\"*|kprobe.function\(\"*|kernel.trace\(\"*)
		pat=${cur#*\(\"}
		"$ktap" $vm -l "${cur%%\(*}(\"${pat}*\")" 2>/dev/null |
			sed 's/@[^"]*"/"/' | sort -u
		;;
	syscall.*)
		pat=${cur#syscall.}
		"$ktap" $vm -l "syscall.${pat%%.*}*" 2>/dev/null |
			sed -n 's/^kernel\.syscall("\(.*\)")$/syscall.\1/p'
		;;
	*)
		"$ktap" --dump-probe-aliases 2>/dev/null | cut -d' ' -f1
		printf '%s\n' begin end 'timer.ms(' 'timer.s(' 'timer.us(' \
			'timer.hz(' timer.profile 'kernel.function("' \
			'kprobe.function("' 'kernel.trace("' 'module("' syscall.
		;;
	esac
}

_ktap()
{
	local cur prev ktap=${COMP_WORDS[0]} vm= w
	_init_completion -n '=:"(' 2>/dev/null || {
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD-1]}
	}
	for w in "${COMP_WORDS[@]}"; do
		[ "$w" = --vm ] && vm=--vm
	done
	case $prev in
	-e|-x|-m|-s|-S|-T|-G|--compatible|--vm-exec)
		return ;;
	-A|--stop)	# the detached scripts running (in the guest with --vm)
		COMPREPLY=($(compgen -W "$("$ktap" $vm --running 2>/dev/null |
			sed 1d | cut -d' ' -f1)" -- "$cur")); return ;;
	-c)
		COMPREPLY=($(compgen -c -- "$cur")); return ;;
	-o|-d)
		COMPREPLY=($(compgen -f -- "$cur")); return ;;
	-I)
		COMPREPLY=($(compgen -d -- "$cur")); return ;;
	-r)
		COMPREPLY=($(compgen -d -- "$cur") \
			$(compgen -W "$(ls /lib/modules 2>/dev/null)" -- "$cur")); return ;;
	-p)
		COMPREPLY=($(compgen -W '1 2 3 4 5' -- "$cur")); return ;;
	-D)
		COMPREPLY=($(compgen -W 'MAXACTION= MAXNESTING= MAXSTRINGLEN=
			MAXTRYLOCK= MAXMAPENTRIES= MAXERRORS= MAXSKIPPED=
			KTAP_MAXBACKTRACE= KTAP_NO_FTRACE KTAP_NO_OVERLOAD' -- "$cur"))
		compopt -o nospace 2>/dev/null
		return ;;
	-l|-L)
		# not compgen -W: it would strip the points' quotes
		local p
		while read -r p; do
			[[ $p == "$cur"* ]] && COMPREPLY+=("$p")
		done < <(_ktap_points "$ktap" "$cur" "$vm")
		compopt -o nospace 2>/dev/null
		return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_ktap_options "$ktap")" -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -f -X '!*.stp' -- "$cur") $(compgen -d -- "$cur"))
}
complete -F _ktap ktap

_ktap_flamegraph()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	case $prev in
	--title|--width|--min-width|--unit) return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W '--title --width --min-width --unit --help' -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -F _ktap_flamegraph ktap-flamegraph
