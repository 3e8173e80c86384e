# ctest audit.json_schema: the whole audit with --json (it must run every
# check and exit 0: no check errors, no relied-on formula fails), then the
# document against proofs_check/schema/audit.schema.json.
execute_process(COMMAND ${AUDIT} --quiet --json ${OUT}
                RESULT_VARIABLE audit_rc OUTPUT_QUIET)
if(NOT audit_rc EQUAL 0)
  message(FATAL_ERROR "proofs_check exited with ${audit_rc}")
endif()
execute_process(COMMAND ${PYTHON} ${VALIDATOR} ${SCHEMA} ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the audit's JSON does not validate against its schema")
endif()
