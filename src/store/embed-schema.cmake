# SPDX-License-Identifier: MIT
# ------------------------------------------------------------------------
# embed-schema.cmake: turns src/store/schema.sql, the single source of the
# store's schema, into a C header under the build directory, so the nodus
# binary carries its schema and needs no file at run time.
#
# Two roles in one file:
#  - included from the top-level CMakeLists.txt after nodus_core is defined:
#    adds a custom command that regenerates the header whenever schema.sql
#    changes, and makes nodus_core depend on it;
#  - run as a script (cmake -DIN=... -DOUT=... -P embed-schema.cmake): writes
#    OUT as `static const char nodus__schema_sql[] = {...bytes..., 0};`.
# ------------------------------------------------------------------------
if(CMAKE_SCRIPT_MODE_FILE)
  file(READ "${IN}" hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
  file(WRITE "${OUT}.tmp"
    "/* Generated from src/store/schema.sql by embed-schema.cmake; do not edit. */\n"
    "static const char nodus__schema_sql[] = {\n${bytes}0x00};\n")
  file(RENAME "${OUT}.tmp" "${OUT}")
  return()
endif()

set(NODUS_SCHEMA_SQL ${CMAKE_SOURCE_DIR}/src/store/schema.sql)
set(NODUS_SCHEMA_H ${CMAKE_BINARY_DIR}/generated/store/schema-sql.h)
add_custom_command(OUTPUT ${NODUS_SCHEMA_H}
  COMMAND ${CMAKE_COMMAND} -DIN=${NODUS_SCHEMA_SQL} -DOUT=${NODUS_SCHEMA_H}
          -P ${CMAKE_SOURCE_DIR}/src/store/embed-schema.cmake
  DEPENDS ${NODUS_SCHEMA_SQL} ${CMAKE_SOURCE_DIR}/src/store/embed-schema.cmake
  COMMENT "Embedding src/store/schema.sql"
  VERBATIM)
target_sources(nodus_core PRIVATE ${NODUS_SCHEMA_H})
target_include_directories(nodus_core PRIVATE ${CMAKE_BINARY_DIR}/generated)
