! spk_mpi.f90 -- the Fortran 2003 interface to the solve across MPI ranks
! (iso_c_binding over include/spk_mpi.h), beside the module spk (fortran/spk.f90),
! whose options, result, status codes, methods and preconditioners it uses.
!
!   use spk
!   use spk_mpi
!   type(c_ptr) :: a
!   type(spk_options) :: opts
!   type(spk_result) :: res
!   st = spk_mpi_matrix_create(MPI_COMM_WORLD, n, row_begin, nrows, rowptr, colind, val, a) ! 1-based (base=0)
!   call spk_options_default(opts)
!   st = spk_mpi_solve(a, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, opts, b, x, res)  ! this rank's b, x
!   if (st /= SPK_OK) print *, spk_mpi_last_error(a)
!   st = spk_mpi_matrix_update_values(a, newval)                              ! same layout as val
!   call spk_mpi_matrix_destroy(a)
!
! The communicator is a Fortran `integer` (use mpi's MPI_COMM_WORLD, or an mpi_f08
! communicator's %MPI_VAL); the module needs no MPI module itself.  Every call but the
! queries is collective and returns the same status on every rank, the failing
! rank's message in spk_mpi_last_error.  Handles are type(c_ptr); strings come back
! as allocatable characters.
module spk_mpi
  use, intrinsic :: iso_c_binding
  use spk, only: spk_options, spk_result, spk_c_string
  implicit none
  private

  public :: spk_mpi_matrix_create, spk_mpi_matrix_update_values, spk_mpi_matrix_destroy, &
       spk_mpi_matrix_info, spk_mpi_matrix_apply, spk_mpi_solve, spk_mpi_method, spk_mpi_precond, &
       spk_mpi_last_error

  interface
     ! New values in the order of the arrays given to create (same pattern)
     function spk_mpi_matrix_update_values(a, val) bind(c, name="spk_mpi_matrix_update_values") result(st)
       import :: c_ptr, c_int, c_double
       type(c_ptr), value :: a
       real(c_double), intent(in) :: val(*)
       integer(c_int) :: st
     end function spk_mpi_matrix_update_values
     subroutine spk_mpi_matrix_destroy(a) bind(c, name="spk_mpi_matrix_destroy")
       import :: c_ptr
       type(c_ptr), value :: a
     end subroutine spk_mpi_matrix_destroy
     ! y = A x: this rank's entries of y from its entries of x
     function spk_mpi_matrix_apply(a, x, y) bind(c, name="spk_mpi_matrix_apply") result(st)
       import :: c_ptr, c_int, c_double
       type(c_ptr), value :: a
       real(c_double), intent(in) :: x(*)
       real(c_double), intent(out) :: y(*)
       integer(c_int) :: st
     end function spk_mpi_matrix_apply
     ! solve from x (this rank's entries; b likewise): res the same on every rank
     function spk_mpi_solve(a, solver, precond, o, b, x, res) bind(c, name="spk_mpi_solve") result(st)
       import :: c_ptr, c_int, c_double, spk_options, spk_result
       type(c_ptr), value :: a
       integer(c_int), value :: solver, precond
       type(spk_options), intent(in) :: o
       real(c_double), intent(in) :: b(*)
       real(c_double), intent(inout) :: x(*)
       type(spk_result), intent(out) :: res
       integer(c_int) :: st
     end function spk_mpi_solve
     ! raw C entry points wrapped below
     function c_create_f(fcomm, n, row_begin, nrows, rowptr, colind, val, a) &
          bind(c, name="spk_mpi_matrix_create_f") result(st)
       import :: c_ptr, c_int
       integer(c_int), value :: fcomm, n, row_begin, nrows
       type(c_ptr), value :: rowptr, colind, val
       type(c_ptr), intent(out) :: a
       integer(c_int) :: st
     end function c_create_f
     function c_info(a, n, row_begin, nrows, halo) bind(c, name="spk_mpi_matrix_info") result(st)
       import :: c_ptr, c_int
       type(c_ptr), value :: a
       integer(c_int), intent(out) :: n, row_begin, nrows, halo
       integer(c_int) :: st
     end function c_info
     function c_method(a) bind(c, name="spk_mpi_method") result(p)
       import :: c_ptr
       type(c_ptr), value :: a
       type(c_ptr) :: p
     end function c_method
     function c_precond(a) bind(c, name="spk_mpi_precond") result(p)
       import :: c_ptr
       type(c_ptr), value :: a
       type(c_ptr) :: p
     end function c_precond
     function c_last_error(a) bind(c, name="spk_mpi_last_error") result(p)
       import :: c_ptr
       type(c_ptr), value :: a
       type(c_ptr) :: p
     end function c_last_error
  end interface

contains

  ! This rank's rows row_begin .. row_begin + nrows - 1 of the global n x n matrix
  ! over the communicator comm: rowptr(nrows+1), colind(nnz), val(nnz), global
  ! columns, with 1-based indices and row_begin (base = 1, the default) or 0-based
  ! ones (base = 0).  Unsorted columns and duplicates (summed) are fine; the arrays
  ! are copied.  Arrays shorter than nrows+1 / nnz are refused on every rank (a
  ! NULL array to the C call, so no rank is left waiting).
  function spk_mpi_matrix_create(comm, n, row_begin, nrows, rowptr, colind, val, a, base) result(st)
    integer, intent(in) :: comm
    integer(c_int), intent(in) :: n, row_begin, nrows
    integer(c_int), intent(in) :: rowptr(:), colind(:)
    real(c_double), intent(in) :: val(:)
    type(c_ptr), intent(out) :: a
    integer, intent(in), optional :: base
    integer(c_int) :: st
    integer(c_int), allocatable, target :: rp(:), ci(:)
    real(c_double), allocatable, target :: v(:)
    type(c_ptr) :: prp, pci, pv
    integer :: b, nnz
    b = 1
    if (present(base)) b = base
    a = c_null_ptr
    prp = c_null_ptr
    pci = c_null_ptr
    pv = c_null_ptr
    ! copies (0-based, contiguous) for the C call; each stays NULL where too short
    if (nrows >= 0 .and. size(rowptr) >= nrows + 1) then
       allocate(rp(nrows + 1))
       rp(:) = rowptr(1:nrows + 1) - b
       prp = c_loc(rp)
       nnz = rp(nrows + 1)
       if (nnz >= 0 .and. size(colind) >= nnz .and. size(val) >= nnz) then
          allocate(ci(max(nnz, 1)), v(max(nnz, 1)))
          ci(1:nnz) = colind(1:nnz) - b
          v(1:nnz) = val(1:nnz)
          pci = c_loc(ci)
          pv = c_loc(v)
       end if
    end if
    st = c_create_f(int(comm, c_int), n, row_begin - b, nrows, prp, pci, pv, a)
  end function spk_mpi_matrix_create

  ! Sizes (each optional): the global n, this rank's first row (in base: 1 the
  ! default, or 0) and row count, and the halo entries it receives in a product.
  function spk_mpi_matrix_info(a, n, row_begin, nrows, halo, base) result(st)
    type(c_ptr), intent(in) :: a
    integer(c_int), intent(out), optional :: n, row_begin, nrows, halo
    integer, intent(in), optional :: base
    integer(c_int) :: st, gn, r0, nr, h
    integer :: b
    b = 1
    if (present(base)) b = base
    gn = 0
    r0 = 0
    nr = 0
    h = 0
    st = c_info(a, gn, r0, nr, h)
    if (present(n)) n = gn
    if (present(row_begin)) row_begin = r0 + b
    if (present(nrows)) nrows = nr
    if (present(halo)) halo = h
  end function spk_mpi_matrix_info

  ! The last solve's method ("cg", "bicgstab"); "" before one
  function spk_mpi_method(a) result(name)
    type(c_ptr), intent(in) :: a
    character(len=:), allocatable :: name
    name = spk_c_string(c_method(a))
  end function spk_mpi_method

  ! The last solve's preconditioner ("none", "jacobi", "ic0", "ilu0"); "" before one
  function spk_mpi_precond(a) result(name)
    type(c_ptr), intent(in) :: a
    character(len=:), allocatable :: name
    name = spk_c_string(c_precond(a))
  end function spk_mpi_precond

  ! This rank's message of the last failed call on a; for a create that failed
  ! (a is then c_null_ptr) that create's message
  function spk_mpi_last_error(a) result(msg)
    type(c_ptr), intent(in) :: a
    character(len=:), allocatable :: msg
    msg = spk_c_string(c_last_error(a))
  end function spk_mpi_last_error

end module spk_mpi
