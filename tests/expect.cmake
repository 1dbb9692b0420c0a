# expect.cmake -- the checks the command-line test scripts share (included).

# expect_in(<text> <part> <what>): part must occur in text
function(expect_in text part what)
  string(FIND "${text}" "${part}" pos)
  if(pos EQUAL -1)
    message(SEND_ERROR "${what}: expected to find '${part}' in:\n${text}")
  endif()
endfunction()
