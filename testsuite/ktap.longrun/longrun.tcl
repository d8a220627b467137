# longrun.tcl - what the ktap.longrun tests share (sourced by each .exp):
# running ktap in the shell with a time limit, in the background, and
# starting and stopping detached scripts (ktap -F) in the guest.

# run a shell command line (at most limit seconds); {status stdout stderr secs}
proc lr_sh {cmd {limit 300}} {
    set out [file join [pwd] lr.out]
    set err [file join [pwd] lr.err]
    set t0 [clock milliseconds]
    set status 0
    if {[catch {exec sh -c "timeout -k 5 $limit sh -c '[string map {' '\\''} $cmd]' >'$out' 2>'$err' </dev/null"} msg opts]} {
        set code [dict get $opts -errorcode]
        set status [expr {[lindex $code 0] eq "CHILDSTATUS" ? [lindex $code 2] : 255}]
    }
    set secs [expr {([clock milliseconds] - $t0) / 1000.0}]
    set res [list $status [ktap_read_file $out] [ktap_read_file $err] $secs]
    verbose -log "lr_sh: $cmd -> status $status in $secs s\n[lindex $res 1][lindex $res 2]" 0
    return $res
}

# ktap with these arguments (a Tcl list of words)
proc lr_ktap {words {limit 300}} {
    global KTAP
    set cmd "exec '$KTAP'"
    foreach w $words { append cmd " '[string map {' '\\''} $w]'" }
    return [lr_sh $cmd $limit]
}

# start ktap in the background, output to prefix.out / prefix.err; its pid
proc lr_bg {words prefix} {
    global KTAP
    set cmd "exec '$KTAP'"
    foreach w $words { append cmd " '[string map {' '\\''} $w]'" }
    set pid [exec sh -c "$cmd >'$prefix.out' 2>'$prefix.err' </dev/null & echo \$!"]
    verbose -log "lr_bg: pid $pid: $cmd" 0
    return $pid
}

proc lr_alive {pid} { return [expr {![catch {exec kill -0 $pid}]}] }

# wait (at most limit s) for a background ktap to end; its exit status,
# or -1 if it had to be killed
proc lr_wait {pid {limit 120}} {
    for {set i 0} {$i < $limit * 10 && [lr_alive $pid]} {incr i} { after 100 }
    if {[lr_alive $pid]} {
        catch {exec kill -9 $pid}
        return -1
    }
    # not our child (sh started it): the status is in the wait of sh; the
    # tests that need it run ktap under lr_sh instead
    return 0
}

# wait until file holds a line matching re (at most limit s)
proc lr_wait_for {file re {limit 120}} {
    for {set i 0} {$i < $limit * 10} {incr i} {
        if {[file exists $file] && [regexp -line -- $re [ktap_read_file $file]]} { return 1 }
        after 100
    }
    return 0
}

# ktap --vm -F ... -e script: the module name it printed last, or ""
proc lr_detach {label opts script} {
    set r [lr_ktap [concat --vm -F $opts [list -e $script]]]
    set last [lindex [split [string trim [lindex $r 1]] "\n"] end]
    if {[lindex $r 0] != 0 || ![regexp {^ktap_[0-9a-f]+$|^[A-Za-z0-9_]+$} $last]} {
        fail "$label: ktap -F did not start the script: [lindex $r 2]"
        return ""
    }
    pass "$label: ktap -F prints the module name last and exits 0 ($last)"
    return $last
}

# stop a detached script whatever happened (cleanup)
proc lr_cleanup {name} {
    if {$name ne ""} { lr_ktap [list --vm --stop $name] 60 }
}

proc lr_check {label ok {why ""}} {
    if {$ok} { pass $label } else { fail "$label$why" }
}
