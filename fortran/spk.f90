! spk.f90 -- the Fortran 2003 interface to spk (iso_c_binding over include/spk.h).
!
!   use spk
!   type(c_ptr) :: ctx, a, s
!   type(spk_options) :: opts
!   type(spk_result) :: res
!   st = spk_context_create(ctx, SPK_DEVICE_AUTO)
!   st = spk_matrix_from_csr(ctx, n, n, rowptr, colind, val, a)      ! 1-based CSR (base=0 for 0-based)
!   call spk_options_default(opts); opts%rtol = 1d-10
!   st = spk_solver_create(ctx, a, SPK_SOLVER_CG, SPK_PRECOND_IC0, opts, s, format="auto")
!   st = spk_solve(s, b, x, res)                                     ! x: initial guess in, solution out
!   if (st /= SPK_OK) print *, spk_last_error(ctx)
!   st = spk_matrix_update_values(a, newval)                         ! same layout as val; next solve refactors
!   call spk_solver_destroy(s); call spk_matrix_destroy(a); call spk_context_destroy(ctx)
!
! Handles are type(c_ptr).  Status codes, devices, methods and preconditioners
! are the C enums' values.  Strings come back as allocatable characters.
module spk
  use, intrinsic :: iso_c_binding
  implicit none
  private

  integer(c_int), parameter, public :: SPK_OK = 0, SPK_ERR_INVALID_ARG = 1, SPK_ERR_IO = 2, &
       SPK_ERR_PARSE = 3, SPK_ERR_UNSUPPORTED = 4, SPK_ERR_NOMEM = 5, SPK_ERR_INVALID_MATRIX = 6, &
       SPK_ERR_ZERO_PIVOT = 7, SPK_ERR_NOT_FOUND = 8, SPK_ERR_DEVICE = 9, SPK_ERR_NOT_CONVERGED = 10, &
       SPK_ERR_BREAKDOWN = 11, SPK_ERR_INDEFINITE = 12, SPK_ERR_INTERNAL = 13
  integer(c_int), parameter, public :: SPK_DEVICE_AUTO = 0, SPK_DEVICE_HOST = 1, SPK_DEVICE_CUDA = 2
  integer(c_int), parameter, public :: SPK_SOLVER_AUTO = 0, SPK_SOLVER_CG = 1, SPK_SOLVER_BICGSTAB = 2
  integer(c_int), parameter, public :: SPK_PRECOND_AUTO = 0, SPK_PRECOND_NONE = 1, SPK_PRECOND_JACOBI = 2, &
       SPK_PRECOND_ILU0 = 3, SPK_PRECOND_IC0 = 4, SPK_PRECOND_FACTOR = 5

  ! struct spk_options (fill with spk_options_default, then change fields)
  type, bind(c), public :: spk_options
     real(c_double) :: rtol, atol
     integer(c_int) :: maxit
     type(c_ptr) :: format            ! set through spk_solver_create(..., format=)
     integer(c_int) :: hmec_parts
     real(c_double) :: tile_te, tile_th
     integer(c_long_long) :: tile_defer_nnz
     integer(c_int) :: allow_shift
     real(c_double) :: shift_init, shift_max
     integer(c_int) :: keep_history
     type(c_funptr) :: monitor
     type(c_ptr) :: monitor_user
     real(c_double) :: dtol
     integer(c_int) :: precond_sweeps  ! IC(0)/ILU(0): -1 auto (default), 0 exact solves, k > 0 k Jacobi sweeps
     integer(c_int) :: precond_isai    ! IC(0)/ILU(0): 1 applies the factors' approximate inverses
     integer(c_int) :: reorder         ! 0 none, 1 multicolor (rows ordered by a greedy coloring),
                                       ! 2 block multicolor (blocks of reorder_block rows colored)
     integer(c_int) :: reorder_block   ! rows per block (0: 16)
     integer(c_int) :: vector_ops      ! 0 classic (one operation per dot product and update), 1 fused,
                                       ! 2 graph, 3 block (small systems: whole iterations in one block)
     integer(c_int) :: precond_precision ! factor values in the sweeps: 0 auto, 1 double, 2 float
     integer(c_int) :: race             ! 1 (default): on the GPU CG without a preconditioner and CG + Jacobi alongside; 2: the first only; 0: never
     integer(c_int) :: sell_c           ! formats sell, cusparse-sell: rows per slice (0: 32)
     integer(c_int) :: sell_sigma       ! format sell: sorting window in rows (0: 256; 1: none)
     integer(c_int) :: bcsr_block       ! formats bcsr, cusparse-bsr, sbcsr: block size (0: 4)
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

  public :: spk_context_create, spk_context_destroy, spk_context_device, spk_last_error, spk_status_name, &
       spk_matrix_from_csr, spk_matrix_update_values, spk_matrix_destroy, spk_options_default, &
       spk_solver_create, spk_solve, spk_solver_destroy, spk_solver_method, spk_solver_precond, &
       spk_solver_precond_sweeps, spk_solver_format, spk_reason_name, spk_version

  interface
     function spk_context_create(ctx, device) bind(c, name="spk_context_create") result(st)
       import :: c_ptr, c_int
       type(c_ptr), intent(out) :: ctx
       integer(c_int), value :: device
       integer(c_int) :: st
     end function spk_context_create
     subroutine spk_context_destroy(ctx) bind(c, name="spk_context_destroy")
       import :: c_ptr
       type(c_ptr), value :: ctx
     end subroutine spk_context_destroy
     function spk_matrix_update_values(a, val) bind(c, name="spk_matrix_update_values") result(st)
       import :: c_ptr, c_int, c_double
       type(c_ptr), value :: a
       real(c_double), intent(in) :: val(*)
       integer(c_int) :: st
     end function spk_matrix_update_values
     subroutine spk_matrix_destroy(a) bind(c, name="spk_matrix_destroy")
       import :: c_ptr
       type(c_ptr), value :: a
     end subroutine spk_matrix_destroy
     subroutine spk_options_default(o) bind(c, name="spk_options_default")
       import :: spk_options
       type(spk_options), intent(out) :: o
     end subroutine spk_options_default
     function spk_solve(s, b, x, res) bind(c, name="spk_solve") result(st)
       import :: c_ptr, c_int, c_double, spk_result
       type(c_ptr), value :: s
       real(c_double), intent(in) :: b(*)
       real(c_double), intent(inout) :: x(*)
       type(spk_result), intent(out) :: res
       integer(c_int) :: st
     end function spk_solve
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

  ! A C string as a Fortran character
  function f_string(p) result(s)
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
  end function f_string

  ! A CSR matrix from Fortran arrays: rowptr(nrows+1), colind(nnz), val(nnz),
  ! with 1-based indices (base = 1, the default) or 0-based ones (base = 0).
  ! Unsorted columns and duplicates (summed) are fine; the arrays are copied.
  function spk_matrix_from_csr(ctx, nrows, ncols, rowptr, colind, val, a, base) result(st)
    type(c_ptr), intent(in) :: ctx
    integer(c_int), intent(in) :: nrows, ncols
    integer(c_int), intent(in) :: rowptr(:), colind(:)
    real(c_double), intent(in) :: val(:)
    type(c_ptr), intent(out) :: a
    integer, intent(in), optional :: base
    integer(c_int) :: st
    integer(c_int), allocatable :: rp(:), ci(:)
    integer :: b
    b = 1
    if (present(base)) b = base
    a = c_null_ptr
    if (size(rowptr) < nrows + 1) then
       st = SPK_ERR_INVALID_ARG
       return
    end if
    if (b == 0) then
       st = c_matrix_from_csr(ctx, nrows, ncols, rowptr, colind, val, a)
    else
       allocate(rp(size(rowptr)), ci(size(colind)))
       rp(:) = rowptr(:) - b
       ci(:) = colind(:) - b
       st = c_matrix_from_csr(ctx, nrows, ncols, rp, ci, val, a)
    end if
  end function spk_matrix_from_csr

  ! A solver for a: solver (SPK_SOLVER_*), precond (SPK_PRECOND_*), options,
  ! and optionally the SpMV format by name ("auto", "cusparse", "ell", ...).
  function spk_solver_create(ctx, a, solver, precond, opts, s, format) result(st)
    type(c_ptr), intent(in) :: ctx, a
    integer(c_int), intent(in) :: solver, precond
    type(spk_options), intent(in) :: opts
    type(c_ptr), intent(out) :: s
    character(len=*), intent(in), optional :: format
    integer(c_int) :: st
    type(spk_options) :: o
    character(kind=c_char, len=:), allocatable, target :: name
    o = opts
    if (present(format)) then
       name = trim(format) // c_null_char
       o%format = c_loc(name)          ! the library copies the name
    end if
    st = c_solver_create(ctx, a, solver, precond, o, s)
  end function spk_solver_create

  function spk_last_error(ctx) result(msg)
    type(c_ptr), intent(in) :: ctx
    character(len=:), allocatable :: msg
    msg = f_string(c_str_ctx(ctx))
  end function spk_last_error

  function spk_context_device(ctx) result(name)
    type(c_ptr), intent(in) :: ctx
    character(len=:), allocatable :: name
    name = f_string(c_device(ctx))
  end function spk_context_device

  function spk_status_name(st) result(name)
    integer(c_int), intent(in) :: st
    character(len=:), allocatable :: name
    name = f_string(c_status_name(st))
  end function spk_status_name

  function spk_reason_name(r) result(name)
    integer(c_int), intent(in) :: r
    character(len=:), allocatable :: name
    name = f_string(c_reason_name(r))
  end function spk_reason_name

  function spk_version() result(v)
    character(len=:), allocatable :: v
    v = f_string(c_version())
  end function spk_version

  function spk_solver_method(s) result(name)
    type(c_ptr), intent(in) :: s
    character(len=:), allocatable :: name
    name = f_string(c_method(s))
  end function spk_solver_method

  function spk_solver_precond(s) result(name)
    type(c_ptr), intent(in) :: s
    character(len=:), allocatable :: name
    name = f_string(c_precond(s))
  end function spk_solver_precond

  function spk_solver_format(s) result(name)
    type(c_ptr), intent(in) :: s
    character(len=:), allocatable :: name
    name = f_string(c_format(s))
  end function spk_solver_format

end module spk
