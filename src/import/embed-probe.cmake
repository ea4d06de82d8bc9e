# SPDX-License-Identifier: MIT
# ------------------------------------------------------------------------
# embed-probe.cmake: turns src/import/kernelbench_probe.py, the Python half
# of `nodus import kernelbench`, into a C header under the build directory,
# so the nodus binary carries it and needs no file beside it at run time
# (the same two roles as src/store/embed-schema.cmake).
#
# Two roles in one file:
#  - included from the top-level CMakeLists.txt after nodus_core is defined:
#    adds a custom command that regenerates the header whenever the probe
#    changes, and makes nodus_core depend on it;
#  - run as a script (cmake -DIN=... -DOUT=... -P embed-probe.cmake): writes
#    OUT as `static const char nodus__kb_probe_py[] = {...bytes..., 0};`.
# ------------------------------------------------------------------------
if(CMAKE_SCRIPT_MODE_FILE)
  file(READ "${IN}" hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
  file(WRITE "${OUT}.tmp"
    "/* Generated from src/import/kernelbench_probe.py by embed-probe.cmake; do not edit. */\n"
    "static const char nodus__kb_probe_py[] = {\n${bytes}0x00};\n")
  file(RENAME "${OUT}.tmp" "${OUT}")
  return()
endif()

set(NODUS_KB_PROBE_PY ${CMAKE_SOURCE_DIR}/src/import/kernelbench_probe.py)
set(NODUS_KB_PROBE_H ${CMAKE_BINARY_DIR}/generated/import/kernelbench-probe.h)
add_custom_command(OUTPUT ${NODUS_KB_PROBE_H}
  COMMAND ${CMAKE_COMMAND} -DIN=${NODUS_KB_PROBE_PY} -DOUT=${NODUS_KB_PROBE_H}
          -P ${CMAKE_SOURCE_DIR}/src/import/embed-probe.cmake
  DEPENDS ${NODUS_KB_PROBE_PY} ${CMAKE_SOURCE_DIR}/src/import/embed-probe.cmake
  COMMENT "Embedding src/import/kernelbench_probe.py"
  VERBATIM)
target_sources(nodus_core PRIVATE ${NODUS_KB_PROBE_H})
target_include_directories(nodus_core PRIVATE ${CMAKE_BINARY_DIR}/generated)
