# Installs the already-built tree into a scratch prefix, then builds and runs a consumer project
# outside the tree against it both ways: find_package(hpsearch 0.2) and pkg-config. The C++
# library, the C library and the installed `searcher-sim drive` must give the same first answer.
# The installed Python module answers alike, and the installed searcher-run gives its trials the
# installed Python client.
# cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DGENERATOR=... -DC_COMPILER=...
#       -DCXX_COMPILER=... -DLIBDIR=... -DPYTHONDIR=... -DPYTHON=... -DPYTHON_MODULE=ON|OFF -P this
#       (LIBDIR, PYTHONDIR: relative to the prefix)
set(prefix "${WORK_DIR}/prefix")
set(config "${SOURCE_DIR}/tests/capi/capi.yaml")
file(REMOVE_RECURSE "${WORK_DIR}")

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "${command}\nfailed (${rc}):\n${out}${err}")
  endif()
  set(output "${out}" PARENT_SCOPE)
endfunction()

run("${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}")

# The layout a distribution expects.
foreach(file IN ITEMS include/hpsearch/hpsearch.h include/hpsearch/config/config.hpp
                      ${LIBDIR}/libhpsearch.so ${LIBDIR}/libhpsearch.so.0.2
                      ${LIBDIR}/libhpsearch.so.0.2.0 ${LIBDIR}/libhpsearch_searcher.a
                      ${LIBDIR}/libhpsearch_config.a ${LIBDIR}/cmake/hpsearch/hpsearch-config.cmake
                      ${LIBDIR}/pkgconfig/hpsearch.pc
                      bin/searcher-sim bin/searcher-run bin/det share/hpsearch/yahpo-rbv2/README.md)
  if(NOT EXISTS "${prefix}/${file}")
    message(FATAL_ERROR "not installed: ${prefix}/${file}")
  endif()
endforeach()
run(readelf -d "${prefix}/${LIBDIR}/libhpsearch.so")
if(NOT output MATCHES "Library soname: \\[libhpsearch\\.so\\.0\\.2\\]")
  message(FATAL_ERROR "unexpected soname:\n${output}")
endif()
# Only the C ABI is exported, not the C++ modules linked inside.
run(nm -D --defined-only "${prefix}/${LIBDIR}/libhpsearch.so")
string(REGEX MATCHALL "[0-9a-f]+ [A-Za-z] [^\n]+" symbols "${output}")
foreach(symbol IN LISTS symbols)
  if(NOT symbol MATCHES " hpsearch_[a-z_]+$" AND NOT symbol MATCHES " A ")
    message(FATAL_ERROR "libhpsearch.so exports more than the C ABI: ${symbol}")
  endif()
endforeach()

# The oracle: the installed program.
file(WRITE "${WORK_DIR}/initial.jsonl" "{\"event\":\"initial_operations\"}\n")
execute_process(COMMAND "${prefix}/bin/searcher-sim" drive --config "${config}" --seed 3
                INPUT_FILE "${WORK_DIR}/initial.jsonl" OUTPUT_VARIABLE expected RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT expected MATCHES "^{\"operations\":\\[{\"hparams\"")
  message(FATAL_ERROR "installed searcher-sim drive failed (${rc}): ${expected}")
endif()

# README.md's C++ block, exactly as written there: built below with the consumers.
file(READ "${SOURCE_DIR}/README.md" readme)
string(FIND "${readme}" "```cpp\n" begin)
if(begin EQUAL -1)
  message(FATAL_ERROR "README.md has no ```cpp block")
endif()
math(EXPR begin "${begin} + 7")
string(SUBSTRING "${readme}" ${begin} -1 rest)
string(FIND "${rest}" "```" end)
string(SUBSTRING "${rest}" 0 ${end} snippet)
file(WRITE "${WORK_DIR}/readme_snippet.cpp" "${snippet}")

# 1. CMake: find_package(hpsearch 0.2 REQUIRED).
run("${CMAKE_COMMAND}" -S "${SOURCE_DIR}/tests/package/consumer" -B "${WORK_DIR}/consumer"
    -G "${GENERATOR}" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=${prefix}"
    "-DCMAKE_C_COMPILER=${C_COMPILER}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
    "-DREADME_SNIPPET=${WORK_DIR}/readme_snippet.cpp")
run("${CMAKE_COMMAND}" --build "${WORK_DIR}/consumer")
# The README's program reads exp.yaml in its working directory and answers two events.
file(MAKE_DIRECTORY "${WORK_DIR}/readme")
file(COPY_FILE "${config}" "${WORK_DIR}/readme/exp.yaml")
execute_process(COMMAND "${WORK_DIR}/consumer/readme_cpp" WORKING_DIRECTORY "${WORK_DIR}/readme"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "README.md's C++ block failed (${rc}):\n${out}${err}")
endif()
foreach(program IN ITEMS consumer_cpp consumer_c)
  run("${WORK_DIR}/consumer/${program}" "${config}" 3)
  if(NOT output STREQUAL expected)
    message(FATAL_ERROR "${program} (find_package) answered\n${output}instead of\n${expected}")
  endif()
endforeach()

# 2. pkg-config, as a C build without CMake would.
set(ENV{PKG_CONFIG_PATH} "${prefix}/${LIBDIR}/pkgconfig")
run(pkg-config --cflags hpsearch)
separate_arguments(cflags UNIX_COMMAND "${output}")
run(pkg-config --libs hpsearch)
separate_arguments(libs UNIX_COMMAND "${output}")
run(pkg-config --variable=libdir hpsearch)
string(STRIP "${output}" libdir)
run("${C_COMPILER}" -std=c99 ${cflags} "${SOURCE_DIR}/tests/package/consumer/consumer.c" ${libs}
    "-Wl,-rpath,${libdir}" -o "${WORK_DIR}/consumer_pkgconfig")
run("${WORK_DIR}/consumer_pkgconfig" "${config}" 3)
if(NOT output STREQUAL expected)
  message(FATAL_ERROR "consumer_c (pkg-config) answered\n${output}instead of\n${expected}")
endif()

# 3. Python: the installed hpsearch module answers as the installed program does.
set(pythondir "${prefix}/${PYTHONDIR}")
if(PYTHON_MODULE)
  file(WRITE "${WORK_DIR}/expected.json" "${expected}")
  run("${CMAKE_COMMAND}" -E env "PYTHONPATH=${pythondir}" PYTHONDONTWRITEBYTECODE=1 "${PYTHON}" -c
      "import hpsearch, json, pathlib, sys
assert hpsearch.__file__.startswith(sys.argv[1]), hpsearch.__file__
answer = hpsearch.Searcher(pathlib.Path(sys.argv[2]), seed=3).feed({'event': 'initial_operations'})
assert answer == json.loads(pathlib.Path(sys.argv[3]).read_text()), answer
print('ok')" "${pythondir}" "${config}" "${WORK_DIR}/expected.json")
endif()

# 4. The installed searcher-run gives its trials the installed Python client, not the source
# tree's: a one-trial experiment whose trial writes where `determined` came from.
file(MAKE_DIRECTORY "${WORK_DIR}/where")
file(WRITE "${WORK_DIR}/where/where.py" "import sys
import determined as det
with open(sys.argv[1], 'w') as out:
    out.write(det.__file__)
with det.core.init() as core:
    core.train.report_validation_metrics(steps_completed=1, metrics={'loss': 0.5})
")
file(WRITE "${WORK_DIR}/where/where.yaml" "name: where
entrypoint: ${PYTHON} where.py ${WORK_DIR}/determined_file.txt
hyperparameters: {}
searcher: {name: single, metric: loss, max_length: {batches: 1}}
max_restarts: 0
")
run("${prefix}/bin/searcher-run" run --config "${WORK_DIR}/where/where.yaml" --dir "${WORK_DIR}/where-exp"
    --context "${WORK_DIR}/where")
file(READ "${WORK_DIR}/determined_file.txt" determined_file)
if(NOT determined_file STREQUAL "${pythondir}/determined/__init__.py")
  message(FATAL_ERROR "the installed searcher-run's trial imported ${determined_file}, "
                      "not ${pythondir}/determined/__init__.py")
endif()
# 5. The installed `det` (from another directory, through a symlink, as a user's ~/bin would
# hold it) drives the installed programs and package: preview-search through searcher-sim, and
# an experiment of its own store followed to its end.
file(CREATE_LINK "${prefix}/bin/det" "${WORK_DIR}/det-link" SYMBOLIC)
set(det_env "${CMAKE_COMMAND}" -E env --unset=HPSEARCH_SEARCHER_RUN --unset=HPSEARCH_SEARCHER_SIM
    --unset=PYTHONPATH "HPSEARCH_HOME=${WORK_DIR}/det-store" "PATH=/usr/bin:/bin")
run(${det_env} "${WORK_DIR}/det-link" preview-search "${WORK_DIR}/where/where.yaml")
if(NOT output MATCHES "This search will create a total of 1 trial\\(s\\)")
  message(FATAL_ERROR "the installed det preview-search printed:\n${output}")
endif()
file(REMOVE "${WORK_DIR}/determined_file.txt")
run(${det_env} "${WORK_DIR}/det-link" experiment create "${WORK_DIR}/where/where.yaml" "${WORK_DIR}/where" -f)
if(NOT output MATCHES "^Created experiment 1\n.*Experiment 1 terminated with state COMPLETED\n$")
  message(FATAL_ERROR "the installed det experiment create -f printed:\n${output}")
endif()
file(READ "${WORK_DIR}/determined_file.txt" determined_file)
if(NOT determined_file STREQUAL "${pythondir}/determined/__init__.py")
  message(FATAL_ERROR "the installed det's trial imported ${determined_file}")
endif()
message(STATUS "installed to ${prefix}; README.md's C++ block runs; find_package and pkg-config consumers and the Python module "
               "agree with searcher-sim drive; the installed searcher-run's trials use the installed client; "
               "the installed det drives the installed programs")
