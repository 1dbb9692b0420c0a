! spk.f90 -- the Fortran 2003 interface to spk (iso_c_binding over include/spk.h).
!
!   use spk
!   type(c_ptr) :: ctx, a, s
!   type(spk_options) :: opts
!   type(spk_result) :: res
!   st = spk_context_create(ctx, SPK_DEVICE_AUTO)
!   st = spk_matrix_from_csr(ctx, n, n, rowptr, colind, val, a)      ! 1-based CSR (base=0 for 0-based)
!   call spk_options_default(opts)
!   st = spk_options_set(opts, "rtol", 1d-10)                        ! any key of the options table
!   st = spk_options_set(opts, "vector-ops", "fused", msg)            ! msg: why, when refused
!   st = spk_solver_create(ctx, a, SPK_SOLVER_CG, SPK_PRECOND_IC0, opts, s)
!   st = spk_solve(s, b, x, res)                                     ! x: initial guess in, solution out
!   if (st /= SPK_OK) print *, spk_last_error(ctx)
!   st = spk_matrix_update_values(a, newval)                         ! same layout as val; next solve refactors
!   (val, b, x complex(c_double_complex): a complex system; SPK_SOLVER_COCG for A = A^T)
!   call spk_solver_destroy(s); call spk_matrix_destroy(a); call spk_context_destroy(ctx)
!
! Handles are type(c_ptr).  Status codes, devices, methods and preconditioners
! are the C enums' values.  Strings come back as allocatable characters.
! type(spk_options) is opaque: it holds a C spk_options (tests/test_fortran.f90
! checks it is large enough), set and read by key (spk_options_set/get/parse,
! the keys of the library's options table, as spk solve --help lists them).
module spk
  use, intrinsic :: iso_c_binding
  implicit none
  private

  integer(c_int), parameter, public :: SPK_OK = 0, SPK_ERR_INVALID_ARG = 1, SPK_ERR_IO = 2, &
       SPK_ERR_PARSE = 3, SPK_ERR_UNSUPPORTED = 4, SPK_ERR_NOMEM = 5, SPK_ERR_INVALID_MATRIX = 6, &
       SPK_ERR_ZERO_PIVOT = 7, SPK_ERR_NOT_FOUND = 8, SPK_ERR_DEVICE = 9, SPK_ERR_NOT_CONVERGED = 10, &
       SPK_ERR_BREAKDOWN = 11, SPK_ERR_INDEFINITE = 12, SPK_ERR_INTERNAL = 13
  integer(c_int), parameter, public :: SPK_DEVICE_AUTO = 0, SPK_DEVICE_HOST = 1, SPK_DEVICE_CUDA = 2
  integer(c_int), parameter, public :: SPK_SOLVER_AUTO = 0, SPK_SOLVER_CG = 1, SPK_SOLVER_BICGSTAB = 2, &
       SPK_SOLVER_GMRES = 3, SPK_SOLVER_COCG = 4
  integer(c_int), parameter, public :: SPK_PRECOND_AUTO = 0, SPK_PRECOND_NONE = 1, SPK_PRECOND_JACOBI = 2, &
       SPK_PRECOND_ILU0 = 3, SPK_PRECOND_IC0 = 4, SPK_PRECOND_FACTOR = 5, SPK_PRECOND_USER = 6

  ! struct spk_options, opaque: fill with spk_options_default, change by key
  integer, parameter :: SPK_OPTIONS_WORDS = 64   ! 512 bytes, more than sizeof(spk_options)
  type, bind(c), public :: spk_options
     integer(c_int64_t) :: opaque(SPK_OPTIONS_WORDS)
  end type spk_options

  ! struct spk_result
  type, bind(c), public :: spk_result
     integer(c_int) :: reason, iterations
     real(c_double) :: rnorm0, rnorm, relres, true_relres
     integer(c_int) :: restarts
     real(c_double) :: shift
     integer(c_int) :: switched
     real(c_double) :: t_setup, t_spmv, t_precond, t_vector, t_total
     integer(c_int) :: history_len
     type(c_ptr) :: history
     real(c_double) :: t_sync          ! fused vector steps: launches and waits of the loop
     real(c_double) :: t_setup_upload  ! parts of t_setup: the matrix's upload to the device,
     real(c_double) :: t_setup_check   ! the symmetry and diagonal checks,
     real(c_double) :: t_setup_format  ! the SpMV format,
     real(c_double) :: t_setup_precond ! the preconditioner
     integer(c_int) :: graph_iterations ! iterations run as a replayed CUDA graph (vector_ops 2)
     integer(c_int) :: block_iterations ! iterations run inside one thread block or cluster (vector_ops 3)
     integer(c_int) :: block_cluster    ! the blocks that ran them: 1 one block, 2-16 a cluster, 0 none
     integer(c_int) :: race             ! 0 none ran; 1 the preconditioned solve answered; 2 CG alongside; 3 CG + Jacobi alongside
  end type spk_result

  public :: spk_context_create, spk_context_destroy, spk_context_set_threads, spk_context_threads, &
       spk_context_device, spk_last_error, spk_status_name, &
       spk_matrix_from_csr, spk_matrix_update_values, spk_matrix_destroy, spk_options_default, &
       spk_options_set, spk_options_get, spk_options_parse, spk_options_size, &
       spk_solver_create, spk_solve, spk_solve_device, spk_solver_destroy, spk_solver_method, spk_solver_precond, &
       spk_solver_precond_sweeps, spk_solver_format, spk_reason_name, spk_version, &
       spk_options_set_precond, spk_options_set_iterate, spk_options_set_monitor, spk_options_set_progress, &
       spk_solver_pivoted, spk_matrix_is_complex
  ! for modules beside this one (spk_mpi): a C string as a Fortran character
  public :: spk_c_string

  ! real or complex(c_double_complex) values and vectors: the complex forms call
  ! spk_matrix_update_values_complex and spk_solve_complex
  interface spk_matrix_update_values
     function c_update_values(a, val) bind(c, name="spk_matrix_update_values") result(st)
       import :: c_ptr, c_int, c_double
       type(c_ptr), value :: a
       real(c_double), intent(in) :: val(*)
       integer(c_int) :: st
     end function c_update_values
     function c_update_values_complex(a, val) bind(c, name="spk_matrix_update_values_complex") result(st)
       import :: c_ptr, c_int, c_double_complex
       type(c_ptr), value :: a
       complex(c_double_complex), intent(in) :: val(*)
       integer(c_int) :: st
     end function c_update_values_complex
  end interface spk_matrix_update_values
  interface spk_solve
     function c_solve(s, b, x, res) bind(c, name="spk_solve") result(st)
       import :: c_ptr, c_int, c_double, spk_result
       type(c_ptr), value :: s
       real(c_double), intent(in) :: b(*)
       real(c_double), intent(inout) :: x(*)
       type(spk_result), intent(out) :: res
       integer(c_int) :: st
     end function c_solve
     function c_solve_complex(s, b, x, res) bind(c, name="spk_solve_complex") result(st)
       import :: c_ptr, c_int, c_double_complex, spk_result
       type(c_ptr), value :: s
       complex(c_double_complex), intent(in) :: b(*)
       complex(c_double_complex), intent(inout) :: x(*)
       type(spk_result), intent(out) :: res
       integer(c_int) :: st
     end function c_solve_complex
  end interface spk_solve
  ! a(0/1-based CSR) with real(c_double) or complex(c_double_complex) values
  interface spk_matrix_from_csr
     module procedure matrix_from_csr_real, matrix_from_csr_complex
  end interface spk_matrix_from_csr

  ! st = spk_options_set(opts, key, value [, msg]): value a string, a real(c_double), an
  ! integer or a logical; msg (allocatable character, optional) says why when refused
  interface spk_options_set
     module procedure options_set_string, options_set_double, options_set_int, options_set_logical
  end interface spk_options_set

  interface
     function spk_options_size() bind(c, name="spk_options_size") result(n)
       import :: c_size_t
       integer(c_size_t) :: n
     end function spk_options_size
     function c_options_set(o, key, value, msg, len) bind(c, name="spk_options_set") result(st)
       import :: c_int, c_char, c_size_t, spk_options
       type(spk_options), intent(inout) :: o
       character(kind=c_char), intent(in) :: key(*), value(*)
       character(kind=c_char), intent(out) :: msg(*)
       integer(c_size_t), value :: len
       integer(c_int) :: st
     end function c_options_set
     function c_options_parse(o, config, msg, len) bind(c, name="spk_options_parse") result(st)
       import :: c_int, c_char, c_size_t, spk_options
       type(spk_options), intent(inout) :: o
       character(kind=c_char), intent(in) :: config(*)
       character(kind=c_char), intent(out) :: msg(*)
       integer(c_size_t), value :: len
       integer(c_int) :: st
     end function c_options_parse
     function c_options_get(o, key, value, len) bind(c, name="spk_options_get") result(st)
       import :: c_int, c_char, c_size_t, spk_options
       type(spk_options), intent(in) :: o
       character(kind=c_char), intent(in) :: key(*)
       character(kind=c_char), intent(out) :: value(*)
       integer(c_size_t), value :: len
       integer(c_int) :: st
     end function c_options_get
     function spk_context_create(ctx, device) bind(c, name="spk_context_create") result(st)
       import :: c_ptr, c_int
       type(c_ptr), intent(out) :: ctx
       integer(c_int), value :: device
       integer(c_int) :: st
     end function spk_context_create
     ! the host threads of the context's setups and solves (0: OMP_NUM_THREADS, else every core)
     function spk_context_set_threads(ctx, n) bind(c, name="spk_context_set_threads") result(st)
       import :: c_ptr, c_int
       type(c_ptr), value :: ctx
       integer(c_int), value :: n
       integer(c_int) :: st
     end function spk_context_set_threads
     function spk_context_threads(ctx) bind(c, name="spk_context_threads") result(n)
       import :: c_ptr, c_int
       type(c_ptr), value :: ctx
       integer(c_int) :: n
     end function spk_context_threads
     subroutine spk_context_destroy(ctx) bind(c, name="spk_context_destroy")
       import :: c_ptr
       type(c_ptr), value :: ctx
     end subroutine spk_context_destroy
     subroutine spk_matrix_destroy(a) bind(c, name="spk_matrix_destroy")
       import :: c_ptr
       type(c_ptr), value :: a
     end subroutine spk_matrix_destroy
     subroutine spk_options_default(o) bind(c, name="spk_options_default")
       import :: spk_options
       type(spk_options), intent(out) :: o
     end subroutine spk_options_default
     ! the callbacks: fn = c_funloc(p) of a bind(c) procedure, c_null_funptr for none.
     ! SPK_PRECOND_USER's apply: integer(c_int) function p(user, n, r, z) bind(c), with
     ! type(c_ptr), value :: user; integer(c_int), value :: n; real(c_double) :: r(n), z(n)
     ! (z = M^-1 r, nonzero to fail); the iterate: subroutine p(user, k, x) bind(c);
     ! the monitor and progress: subroutine p(user, k, rnorm, relres) bind(c), by value
     subroutine spk_options_set_precond(o, fn, user) bind(c, name="spk_options_set_precond")
       import :: spk_options, c_funptr, c_ptr
       type(spk_options), intent(inout) :: o
       type(c_funptr), value :: fn
       type(c_ptr), value :: user
     end subroutine spk_options_set_precond
     subroutine spk_options_set_iterate(o, fn, user) bind(c, name="spk_options_set_iterate")
       import :: spk_options, c_funptr, c_ptr
       type(spk_options), intent(inout) :: o
       type(c_funptr), value :: fn
       type(c_ptr), value :: user
     end subroutine spk_options_set_iterate
     subroutine spk_options_set_monitor(o, fn, user) bind(c, name="spk_options_set_monitor")
       import :: spk_options, c_funptr, c_ptr
       type(spk_options), intent(inout) :: o
       type(c_funptr), value :: fn
       type(c_ptr), value :: user
     end subroutine spk_options_set_monitor
     subroutine spk_options_set_progress(o, fn, user) bind(c, name="spk_options_set_progress")
       import :: spk_options, c_funptr, c_ptr
       type(spk_options), intent(inout) :: o
       type(c_funptr), value :: fn
       type(c_ptr), value :: user
     end subroutine spk_options_set_progress
     ! b and x in the memory of the context's GPU (device addresses, e.g. c_devloc of CUDA
     ! Fortran arrays or c_loc inside an OpenACC host_data use_device region)
     function spk_solve_device(s, b, x, res) bind(c, name="spk_solve_device") result(st)
       import :: c_ptr, c_int, spk_result
       type(c_ptr), value :: s, b, x
       type(spk_result), intent(out) :: res
       integer(c_int) :: st
     end function spk_solve_device
     function spk_solver_pivoted(s) bind(c, name="spk_solver_pivoted") result(rows)
       import :: c_ptr, c_int
       type(c_ptr), value :: s
       integer(c_int) :: rows
     end function spk_solver_pivoted
     subroutine spk_solver_destroy(s) bind(c, name="spk_solver_destroy")
       import :: c_ptr
       type(c_ptr), value :: s
     end subroutine spk_solver_destroy
     ! Jacobi sweeps per triangular solve of IC(0)/ILU(0); 0: exact solves or none
     function spk_solver_precond_sweeps(s) bind(c, name="spk_solver_precond_sweeps") result(k)
       import :: c_ptr, c_int
       type(c_ptr), value :: s
       integer(c_int) :: k
     end function spk_solver_precond_sweeps
     ! raw C entry points wrapped below
     function c_matrix_from_csr(ctx, nrows, ncols, rowptr, colind, val, a) &
          bind(c, name="spk_matrix_from_csr") result(st)
       import :: c_ptr, c_int, c_double
       type(c_ptr), value :: ctx
       integer(c_int), value :: nrows, ncols
       integer(c_int), intent(in) :: rowptr(*), colind(*)
       real(c_double), intent(in) :: val(*)
       type(c_ptr), intent(out) :: a
       integer(c_int) :: st
     end function c_matrix_from_csr
     function c_matrix_from_csr_complex(ctx, nrows, ncols, rowptr, colind, val, a) &
          bind(c, name="spk_matrix_from_csr_complex") result(st)
       import :: c_ptr, c_int, c_double_complex
       type(c_ptr), value :: ctx
       integer(c_int), value :: nrows, ncols
       integer(c_int), intent(in) :: rowptr(*), colind(*)
       complex(c_double_complex), intent(in) :: val(*)
       type(c_ptr), intent(out) :: a
       integer(c_int) :: st
     end function c_matrix_from_csr_complex
     ! 1 for a complex matrix
     function spk_matrix_is_complex(a) bind(c, name="spk_matrix_is_complex") result(k)
       import :: c_ptr, c_int
       type(c_ptr), value :: a
       integer(c_int) :: k
     end function spk_matrix_is_complex
     function c_solver_create(ctx, a, solver, precond, o, s) bind(c, name="spk_solver_create") result(st)
       import :: c_ptr, c_int, spk_options
       type(c_ptr), value :: ctx, a
       integer(c_int), value :: solver, precond
       type(spk_options), intent(in) :: o
       type(c_ptr), intent(out) :: s
       integer(c_int) :: st
     end function c_solver_create
     function c_str_ctx(ctx) bind(c, name="spk_last_error") result(p)
       import :: c_ptr
       type(c_ptr), value :: ctx
       type(c_ptr) :: p
     end function c_str_ctx
     function c_device(ctx) bind(c, name="spk_context_device") result(p)
       import :: c_ptr
       type(c_ptr), value :: ctx
       type(c_ptr) :: p
     end function c_device
     function c_status_name(st) bind(c, name="spk_status_name") result(p)
       import :: c_ptr, c_int
       integer(c_int), value :: st
       type(c_ptr) :: p
     end function c_status_name
     function c_reason_name(r) bind(c, name="spk_reason_name") result(p)
       import :: c_ptr, c_int
       integer(c_int), value :: r
       type(c_ptr) :: p
     end function c_reason_name
     function c_version() bind(c, name="spk_version") result(p)
       import :: c_ptr
       type(c_ptr) :: p
     end function c_version
     function c_method(s) bind(c, name="spk_solver_method") result(p)
       import :: c_ptr
       type(c_ptr), value :: s
       type(c_ptr) :: p
     end function c_method
     function c_precond(s) bind(c, name="spk_solver_precond") result(p)
       import :: c_ptr
       type(c_ptr), value :: s
       type(c_ptr) :: p
     end function c_precond
     function c_format(s) bind(c, name="spk_solver_format") result(p)
       import :: c_ptr
       type(c_ptr), value :: s
       type(c_ptr) :: p
     end function c_format
     function c_strlen(p) bind(c, name="strlen") result(n)
       import :: c_ptr, c_size_t
       type(c_ptr), value :: p
       integer(c_size_t) :: n
     end function c_strlen
  end interface

contains

  ! A C string as a Fortran character (NULL: "")
  function spk_c_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(p)) then
       s = ""
       return
    end if
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate(character(len=n) :: s)
    do i = 1, n
       s(i:i) = chars(i)
    end do
  end function spk_c_string

  ! A CSR matrix from Fortran arrays: rowptr(nrows+1), colind(nnz), val(nnz),
  ! with 1-based indices (base = 1, the default) or 0-based ones (base = 0).
  ! Unsorted columns and duplicates (summed) are fine; the arrays are copied.
  ! The row pointers and columns of a b-based CSR as 0-based copies.
  subroutine zero_based(rowptr, colind, b, rp, ci)
    integer(c_int), intent(in) :: rowptr(:), colind(:)
    integer, intent(in) :: b
    integer(c_int), allocatable, intent(out) :: rp(:), ci(:)
    allocate(rp(size(rowptr)), ci(size(colind)))
    rp(:) = rowptr(:) - b
    ci(:) = colind(:) - b
  end subroutine zero_based

  ! The base (1 unless given) and whether rowptr holds nrows + 1 entries
  ! (st SPK_ERR_INVALID_ARG where it does not).
  logical function csr_args(rowptr, nrows, base, b, st)
    integer(c_int), intent(in) :: rowptr(:), nrows
    integer, intent(in), optional :: base
    integer, intent(out) :: b
    integer(c_int), intent(out) :: st
    b = 1
    if (present(base)) b = base
    st = SPK_OK
    if (size(rowptr) < nrows + 1) st = SPK_ERR_INVALID_ARG
    csr_args = st == SPK_OK
  end function csr_args

  function matrix_from_csr_real(ctx, nrows, ncols, rowptr, colind, val, a, base) result(st)
    type(c_ptr), intent(in) :: ctx
    integer(c_int), intent(in) :: nrows, ncols
    integer(c_int), intent(in) :: rowptr(:), colind(:)
    real(c_double), intent(in) :: val(:)
    type(c_ptr), intent(out) :: a
    integer, intent(in), optional :: base
    integer(c_int) :: st
    integer(c_int), allocatable :: rp(:), ci(:)
    integer :: b
    a = c_null_ptr
    if (.not. csr_args(rowptr, nrows, base, b, st)) return
    if (b == 0) then
       st = c_matrix_from_csr(ctx, nrows, ncols, rowptr, colind, val, a)
    else
       call zero_based(rowptr, colind, b, rp, ci)
       st = c_matrix_from_csr(ctx, nrows, ncols, rp, ci, val, a)
    end if
  end function matrix_from_csr_real

  function matrix_from_csr_complex(ctx, nrows, ncols, rowptr, colind, val, a, base) result(st)
    type(c_ptr), intent(in) :: ctx
    integer(c_int), intent(in) :: nrows, ncols
    integer(c_int), intent(in) :: rowptr(:), colind(:)
    complex(c_double_complex), intent(in) :: val(:)
    type(c_ptr), intent(out) :: a
    integer, intent(in), optional :: base
    integer(c_int) :: st
    integer(c_int), allocatable :: rp(:), ci(:)
    integer :: b
    a = c_null_ptr
    if (.not. csr_args(rowptr, nrows, base, b, st)) return
    if (b == 0) then
       st = c_matrix_from_csr_complex(ctx, nrows, ncols, rowptr, colind, val, a)
    else
       call zero_based(rowptr, colind, b, rp, ci)
       st = c_matrix_from_csr_complex(ctx, nrows, ncols, rp, ci, val, a)
    end if
  end function matrix_from_csr_complex

  ! A solver for a: solver (SPK_SOLVER_*), precond (SPK_PRECOND_*), options,
  ! and optionally the SpMV format by name ("auto", "cusparse", "ell", ...: the
  ! same as spk_options_set(opts, "format", name), whose status an unknown name
  ! returns).
  function spk_solver_create(ctx, a, solver, precond, opts, s, format) result(st)
    type(c_ptr), intent(in) :: ctx, a
    integer(c_int), intent(in) :: solver, precond
    type(spk_options), intent(in) :: opts
    type(c_ptr), intent(out) :: s
    character(len=*), intent(in), optional :: format
    integer(c_int) :: st
    type(spk_options) :: o
    o = opts
    s = c_null_ptr
    if (present(format)) then
       st = spk_options_set(o, "format", format)
       if (st /= SPK_OK) return
    end if
    st = c_solver_create(ctx, a, solver, precond, o, s)
  end function spk_solver_create

  ! The characters of s up to its NUL.
  function f_chars(s) result(r)
    character(kind=c_char), intent(in) :: s(:)
    character(len=:), allocatable :: r
    integer :: i, n
    n = 0
    do while (n < size(s))
       if (s(n + 1) == c_null_char) exit
       n = n + 1
    end do
    allocate(character(len=n) :: r)
    do i = 1, n
       r(i:i) = s(i)
    end do
  end function f_chars

  function options_set_string(o, key, value, msg) result(st)
    type(spk_options), intent(inout) :: o
    character(len=*), intent(in) :: key, value
    character(len=:), allocatable, intent(out), optional :: msg
    integer(c_int) :: st
    character(kind=c_char) :: buf(1024)
    buf(1) = c_null_char
    st = c_options_set(o, trim(key) // c_null_char, trim(value) // c_null_char, buf, &
         int(size(buf), c_size_t))
    if (present(msg)) msg = f_chars(buf)
  end function options_set_string

  function options_set_double(o, key, value, msg) result(st)
    type(spk_options), intent(inout) :: o
    character(len=*), intent(in) :: key
    real(c_double), intent(in) :: value
    character(len=:), allocatable, intent(out), optional :: msg
    integer(c_int) :: st
    character(len=:), allocatable :: m
    character(len=32) :: text
    write(text, '(es25.17e3)') value   ! 17 digits: the same double back
    st = options_set_string(o, key, adjustl(text), m)
    if (present(msg)) msg = m
  end function options_set_double

  function options_set_int(o, key, value, msg) result(st)
    type(spk_options), intent(inout) :: o
    character(len=*), intent(in) :: key
    integer, intent(in) :: value
    character(len=:), allocatable, intent(out), optional :: msg
    integer(c_int) :: st
    character(len=:), allocatable :: m
    character(len=24) :: text
    write(text, '(i0)') value
    st = options_set_string(o, key, text, m)
    if (present(msg)) msg = m
  end function options_set_int

  function options_set_logical(o, key, value, msg) result(st)
    type(spk_options), intent(inout) :: o
    character(len=*), intent(in) :: key
    logical, intent(in) :: value
    character(len=:), allocatable, intent(out), optional :: msg
    integer(c_int) :: st
    character(len=:), allocatable :: m
    character(len=3) :: text
    text = merge("on ", "off", value)
    st = options_set_string(o, key, text, m)
    if (present(msg)) msg = m
  end function options_set_logical

  ! "key=value, key=value, ..." into o (unchanged when any is refused; msg says why).
  function spk_options_parse(o, config, msg) result(st)
    type(spk_options), intent(inout) :: o
    character(len=*), intent(in) :: config
    character(len=:), allocatable, intent(out), optional :: msg
    integer(c_int) :: st
    character(kind=c_char) :: buf(1024)
    buf(1) = c_null_char
    st = c_options_parse(o, trim(config) // c_null_char, buf, int(size(buf), c_size_t))
    if (present(msg)) msg = f_chars(buf)
  end function spk_options_parse

  ! The value of key in o as text ("1e-8", "block"); "" for an unknown key.
  function spk_options_get(o, key) result(value)
    type(spk_options), intent(in) :: o
    character(len=*), intent(in) :: key
    character(len=:), allocatable :: value
    character(kind=c_char) :: buf(256)
    buf(1) = c_null_char
    if (c_options_get(o, trim(key) // c_null_char, buf, int(size(buf), c_size_t)) /= SPK_OK) buf(1) = c_null_char
    value = f_chars(buf)
  end function spk_options_get

  function spk_last_error(ctx) result(msg)
    type(c_ptr), intent(in) :: ctx
    character(len=:), allocatable :: msg
    msg = spk_c_string(c_str_ctx(ctx))
  end function spk_last_error

  function spk_context_device(ctx) result(name)
    type(c_ptr), intent(in) :: ctx
    character(len=:), allocatable :: name
    name = spk_c_string(c_device(ctx))
  end function spk_context_device

  function spk_status_name(st) result(name)
    integer(c_int), intent(in) :: st
    character(len=:), allocatable :: name
    name = spk_c_string(c_status_name(st))
  end function spk_status_name

  function spk_reason_name(r) result(name)
    integer(c_int), intent(in) :: r
    character(len=:), allocatable :: name
    name = spk_c_string(c_reason_name(r))
  end function spk_reason_name

  function spk_version() result(v)
    character(len=:), allocatable :: v
    v = spk_c_string(c_version())
  end function spk_version

  function spk_solver_method(s) result(name)
    type(c_ptr), intent(in) :: s
    character(len=:), allocatable :: name
    name = spk_c_string(c_method(s))
  end function spk_solver_method

  function spk_solver_precond(s) result(name)
    type(c_ptr), intent(in) :: s
    character(len=:), allocatable :: name
    name = spk_c_string(c_precond(s))
  end function spk_solver_precond

  function spk_solver_format(s) result(name)
    type(c_ptr), intent(in) :: s
    character(len=:), allocatable :: name
    name = spk_c_string(c_format(s))
  end function spk_solver_format

end module spk
