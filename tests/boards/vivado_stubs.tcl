# Stubs of the Vivado commands the generated board scripts call (build_bitstream.tcl,
# package_kernel.tcl), so tclsh can run those scripts here, where there is no Vivado.
#
# Each command that changes the design appends one line to the call log: the command and its
# arguments as a Tcl list. Queries (get_*) return an object name of the shape Vivado returns and are
# not logged. A command the scripts call that is not stubbed here stops tclsh with "invalid
# command name", which is the point: the stubs list the Vivado commands the flows depend on.
#
# Set before sourcing:
#   loom_stub_log          the call log's path
#   loom_stub_board_parts  the board parts "installed" (what get_board_parts finds)

proc loom_stub_record {name arguments} {
  set f [open $::loom_stub_log a]
  puts $f [linsert $arguments 0 $name]
  close $f
}

# Commands that change state: logged, return nothing.
foreach cmd {
  create_project add_files update_compile_order set_property apply_bd_automation
  connect_bd_net connect_bd_intf_net assign_bd_address validate_bd_design save_bd_design
  generate_target make_wrapper launch_runs wait_on_run open_run report_utilization
  report_timing_summary write_bitstream write_hw_platform close_project package_xo
} {
  proc $cmd args "loom_stub_record $cmd \$args"
}

proc current_project {} { return project_1 }
proc current_fileset {} { return sources_1 }

# The last argument names the object; options before it are ignored.
foreach cmd {
  get_bd_cells get_bd_pins get_bd_intf_pins get_bd_addr_spaces get_bd_addr_segs get_files get_runs
} {
  proc $cmd args { return [lindex $args end] }
}

proc get_board_parts args {
  set pattern [lindex $args end]
  return [lsearch -all -inline -glob $::loom_stub_board_parts $pattern]
}

# Two versions of every IP, out of order, so the scripts must pick the newest themselves.
proc get_ipdefs args {
  set pattern [lindex $args end]
  if {![string match *:\\* $pattern]} { error "get_ipdefs stub: expected vendor:lib:name:*" }
  set base [string range $pattern 0 end-1]
  return [list ${base}1.10 ${base}1.9]
}

proc create_bd_design {name} {
  loom_stub_record create_bd_design [list $name]
  return $name
}
proc create_bd_cell args {
  loom_stub_record create_bd_cell $args
  return [lindex $args end]
}

proc get_property {name object} {
  switch -- $name {
    PROGRESS { return 100% }
    SLACK { return 0.250 }
    NAME { return $object }
    default { error "get_property stub: no value for $name" }
  }
}
proc get_timing_paths args { return timing_path_1 }

namespace eval ipx {}
foreach cmd {
  package_project unload_core edit_ip_in_project remove_user_parameter associate_bus_interfaces
  create_xgui_files update_checksums check_integrity save_core
} {
  proc ipx::$cmd args "loom_stub_record ipx::$cmd \$args"
}
proc ipx::current_core {} { return core_1 }
proc ipx::get_user_parameters args { return {C_S_AXI_CONTROL_ADDR_WIDTH} }
proc ipx::get_bus_interfaces args { return bus_[lindex $args end] }
# add_* return the new object's name: <kind>_<name>.
foreach {cmd kind} {
  add_bus_parameter bus_parameter add_memory_map memory_map add_address_block block
  add_register register add_register_parameter register_parameter
} {
  proc ipx::$cmd args "
    loom_stub_record ipx::$cmd \$args
    set words \[lsearch -all -inline -not -glob \$args -*\]
    return ${kind}_\[lindex \$words 0\]
  "
}
