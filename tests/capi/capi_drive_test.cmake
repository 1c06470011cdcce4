# Plays a search through the C ABI (capi_test), then replays the very lines it fed through
# `searcher-sim drive`, the independent oracle, and requires byte-identical answers.
# cmake -DCAPI_TEST=... -DSEARCHER_SIM=... -DCONFIG=... -DSEED=... -DWORK_DIR=... -P this
file(MAKE_DIRECTORY "${WORK_DIR}")
execute_process(
  COMMAND "${CAPI_TEST}" "${CONFIG}" "${SEED}" "${WORK_DIR}/events.jsonl" "${WORK_DIR}/capi.jsonl"
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "capi_test failed (${rc})")
endif()
execute_process(
  COMMAND "${SEARCHER_SIM}" drive --config "${CONFIG}" --seed "${SEED}"
  INPUT_FILE "${WORK_DIR}/events.jsonl"
  OUTPUT_FILE "${WORK_DIR}/drive.jsonl"
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "searcher-sim drive failed (${rc})")
endif()
file(STRINGS "${WORK_DIR}/events.jsonl" lines)
list(LENGTH lines count)
if(count LESS 150)  # capi.yaml plays 170
  message(FATAL_ERROR "only ${count} lines were played: the search in ${CONFIG} is too small to test")
endif()
execute_process(
  COMMAND "${CMAKE_COMMAND}" -E compare_files "${WORK_DIR}/capi.jsonl" "${WORK_DIR}/drive.jsonl"
  RESULT_VARIABLE differ)
if(NOT differ EQUAL 0)
  message(FATAL_ERROR "the C ABI and searcher-sim drive answered differently: compare "
                      "${WORK_DIR}/capi.jsonl and ${WORK_DIR}/drive.jsonl")
endif()
message(STATUS "${count} lines answered identically by the C ABI and searcher-sim drive")
