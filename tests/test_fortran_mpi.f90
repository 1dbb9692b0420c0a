! test_fortran_mpi.f90 -- the module spk_mpi (fortran/spk_mpi.f90) as a Fortran
! code uses it: each rank assembles its rows of the 2-D Laplacian in 1-based CSR
! (neighbours in reverse order, the diagonal in two halves), checks the product
! against its own, solves with the default and with no preconditioner (x against
! the known solution, the method, the same iteration count on every rank and, for
! none, that of one process through the module spk), the same from 0-based arrays
! over a duplicated communicator, new values; and that bad calls (a column out of
! range on one rank, a short rowptr, too few iterations) fail on every rank with
! a message.  Run with 1, 2 and 3 ranks.
program test_fortran_mpi
  use, intrinsic :: iso_c_binding
  use mpi
  use spk
  use spk_mpi
  implicit none
  integer, parameter :: m = 24, n = m * m
  integer :: rank, nproc, ierr, nchecks, nfails, total(2), sums(2)
  integer(c_int) :: r0, nl
  integer(c_int), allocatable :: rp(:), ci(:)
  real(c_double), allocatable :: v(:), xs(:), b(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  nchecks = 0
  nfails = 0
  r0 = int(int(n, 8) * rank / nproc, c_int)           ! this rank's rows: 0-based r0 .. r0 + nl - 1
  nl = int(int(n, 8) * (rank + 1) / nproc, c_int) - r0
  call assemble(r0, nl, rp, ci, v)
  call known_solution(r0, nl, rp, ci, v, xs, b)
  call solves()
  call errors()
  total = [nchecks, nfails]
  call MPI_Allreduce(total, sums, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(i0, a, i0, a, i0, a)', sums(1), " checks on ", nproc, " ranks, ", sums(2), " failed"
  call MPI_Finalize(ierr)
  if (sums(2) > 0) stop 1

contains

  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    nchecks = nchecks + 1
    if (.not. cond) then
       nfails = nfails + 1
       print '(a, i0, a, a)', "rank ", rank, ": FAILED: ", what
    end if
  end subroutine check

  ! Rows r0 .. r0+nl-1 (0-based) of the m x m grid's 5-point Laplacian, 1-based CSR
  subroutine assemble(r0, nl, rp, ci, v)
    integer(c_int), intent(in) :: r0, nl
    integer(c_int), allocatable, intent(out) :: rp(:), ci(:)
    real(c_double), allocatable, intent(out) :: v(:)
    integer :: i, k, q, x, y, nb(4)
    allocate(rp(nl + 1), ci(6 * nl + 1), v(6 * nl + 1))
    q = 0
    rp(1) = 1
    do i = r0, r0 + nl - 1
       x = mod(i, m)
       y = i / m
       nb = [merge(i + m, -1, y < m - 1), merge(i + 1, -1, x < m - 1), merge(i - 1, -1, x > 0), &
            merge(i - m, -1, y > 0)]
       do k = 1, 4
          if (nb(k) >= 0) then
             q = q + 1
             ci(q) = nb(k) + 1
             v(q) = -1
          end if
       end do
       do k = 1, 2
          q = q + 1
          ci(q) = i + 1
          v(q) = 2
       end do
       rp(i - r0 + 2) = q + 1
    end do
  end subroutine assemble

  real(c_double) function xstar(i)   ! the known solution at global row i (0-based)
    integer, intent(in) :: i
    xstar = sin(0.37d0 * i) + 1.5d0
  end function xstar

  ! This rank's x* and b = A x*, from its own rows and x* at every column
  subroutine known_solution(r0, nl, rp, ci, v, xs, b)
    integer(c_int), intent(in) :: r0, nl, rp(:), ci(:)
    real(c_double), intent(in) :: v(:)
    real(c_double), allocatable, intent(out) :: xs(:), b(:)
    integer :: i, k
    allocate(xs(nl), b(nl))
    do i = 1, nl
       xs(i) = xstar(r0 + i - 1)
       b(i) = 0
       do k = rp(i), rp(i + 1) - 1
          b(i) = b(i) + v(k) * xstar(ci(k) - 1)
       end do
    end do
  end subroutine known_solution

  logical function same_on_all(k)
    integer, intent(in) :: k
    integer :: lo, hi
    call MPI_Allreduce(k, lo, 1, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD, ierr)
    call MPI_Allreduce(k, hi, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
    same_on_all = lo == hi
  end function same_on_all

  logical function all_ranks(cond)   ! cond on every rank
    logical, intent(in) :: cond
    call MPI_Allreduce(cond, all_ranks, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  end function all_ranks

  real(c_double) function max_all(e)
    real(c_double), intent(in) :: e
    call MPI_Allreduce(e, max_all, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  end function max_all

  ! Solve A x = b from x = 0 and check x, the method and the ranks; the iterations
  integer function solve_check(a, solver, precond, method, pc, what, scale) result(its)
    type(c_ptr), intent(in) :: a
    integer(c_int), intent(in) :: solver, precond
    character(len=*), intent(in) :: method, pc, what
    real(c_double), intent(in) :: scale
    type(spk_options) :: o
    type(spk_result) :: res
    real(c_double) :: x(max(nl, 1)), err
    integer(c_int) :: st
    call spk_options_default(o)
    call check(spk_options_set(o, "rtol", 1d-10) == SPK_OK, what // ": rtol")
    x = 0
    st = spk_mpi_solve(a, solver, precond, o, b, x, res)   ! reason 0: SPK_CONVERGED_RTOL
    call check(st == SPK_OK .and. res%reason == 0, what // ": " // spk_status_name(st) // ", " // &
         spk_reason_name(res%reason) // ": " // spk_mpi_last_error(a))
    err = 0
    if (nl > 0) err = maxval(abs(x(1:nl) - scale * xs))
    err = max_all(err)
    call check(err < 1d-6, what // ": x differs from x*")
    call check(spk_mpi_method(a) == method .and. spk_mpi_precond(a) == pc, what // ": ran " // &
         spk_mpi_method(a) // " + " // spk_mpi_precond(a))
    call check(same_on_all(int(res%iterations)) .and. res%iterations > 0, what // ": iterations differ across ranks")
    if (rank == 0) print '(a, a, i0, a, a, a, a, a, i0, a, es8.1)', what, ": ", nproc, " ranks, ", &
         spk_mpi_method(a), " + ", spk_mpi_precond(a), ", ", res%iterations, " iterations, |x - x*| = ", err
    its = res%iterations
  end function solve_check

  ! CG without a preconditioner in one process (the module spk), on the whole matrix
  integer function one_process_iterations() result(its)
    integer(c_int), allocatable :: grp(:), gci(:)
    real(c_double), allocatable :: gv(:), gxs(:), gb(:)
    real(c_double) :: x(n)
    type(c_ptr) :: ctx, a, s
    type(spk_options) :: o
    type(spk_result) :: res
    its = -1
    call assemble(0, n, grp, gci, gv)
    call known_solution(0, n, grp, gci, gv, gxs, gb)
    if (spk_context_create(ctx, SPK_DEVICE_HOST) /= SPK_OK) return
    call spk_options_default(o)
    if (spk_options_set(o, "rtol", 1d-10) == SPK_OK .and. &
         spk_matrix_from_csr(ctx, n, n, grp, gci(1:grp(n + 1) - 1), gv(1:grp(n + 1) - 1), a) == SPK_OK) then
       if (spk_solver_create(ctx, a, SPK_SOLVER_CG, SPK_PRECOND_NONE, o, s) == SPK_OK) then
          x = 0
          if (spk_solve(s, gb, x, res) == SPK_OK) its = res%iterations
          call spk_solver_destroy(s)
       end if
       call spk_matrix_destroy(a)
    end if
    call spk_context_destroy(ctx)
  end function one_process_iterations

  subroutine solves()
    type(c_ptr) :: a
    integer(c_int) :: gn, g0, gnl, halo, st
    integer :: k_none, k, comm2
    real(c_double) :: y(max(nl, 1)), err
    st = spk_mpi_matrix_create(MPI_COMM_WORLD, n, r0 + 1, nl, rp, ci, v, a)
    call check(st == SPK_OK .and. c_associated(a), "create: " // spk_mpi_last_error(a))
    if (.not. all_ranks(c_associated(a))) return
    call check(spk_mpi_matrix_info(a, gn, g0, gnl, halo) == SPK_OK .and. gn == n .and. g0 == r0 + 1 .and. &
         gnl == nl .and. (halo > 0 .eqv. nproc > 1), "info")
    call check(spk_mpi_matrix_info(a, row_begin=g0, base=0) == SPK_OK .and. g0 == r0, "info, 0-based")
    call check(spk_mpi_method(a) == "" .and. spk_mpi_precond(a) == "", "method before a solve")
    ! the product against this rank's own
    y = 0
    call check(spk_mpi_matrix_apply(a, xs, y) == SPK_OK, "apply: " // spk_mpi_last_error(a))
    err = 0
    if (nl > 0) err = maxval(abs(y(1:nl) - b))
    call check(max_all(err) < 1d-12, "apply: A x* differs from this rank's product")
    k = solve_check(a, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, "cg", "ic0", "the default", 1d0)
    k_none = solve_check(a, SPK_SOLVER_CG, SPK_PRECOND_NONE, "cg", "none", "CG, none", 1d0)
    k = one_process_iterations()
    call check(k == k_none, "CG, none: not the iterations of one process")
    ! twice the values: x* / 2
    v = 2 * v
    call check(spk_mpi_matrix_update_values(a, v) == SPK_OK, "update_values: " // spk_mpi_last_error(a))
    k = solve_check(a, SPK_SOLVER_AUTO, SPK_PRECOND_FACTOR, "cg", "ic0", "after update_values(2 A)", 0.5d0)
    v = v / 2
    call spk_mpi_matrix_destroy(a)
    ! 0-based arrays over a duplicated communicator: the same solve
    call MPI_Comm_dup(MPI_COMM_WORLD, comm2, ierr)
    st = spk_mpi_matrix_create(comm2, n, r0, nl, rp - 1, ci - 1, v, a, base=0)
    call check(st == SPK_OK, "create, 0-based on a duplicate: " // spk_mpi_last_error(a))
    if (all_ranks(c_associated(a))) then
       k = solve_check(a, SPK_SOLVER_CG, SPK_PRECOND_NONE, "cg", "none", "CG, none (0-based, duplicate)", 1d0)
       call check(k == k_none, "0-based on a duplicate: other iterations")
    end if
    call spk_mpi_matrix_destroy(a)
    call MPI_Comm_free(comm2, ierr)
  end subroutine solves

  ! A failure on one rank is every rank's, with a message.
  subroutine errors()
    type(c_ptr) :: a
    type(spk_options) :: o
    type(spk_result) :: res
    integer(c_int) :: st, keep
    real(c_double) :: x(max(nl, 1))
    character(len=:), allocatable :: msg
    ! the last rank's first column out of range
    keep = ci(1)
    if (rank == nproc - 1) ci(1) = n + 5
    st = spk_mpi_matrix_create(MPI_COMM_WORLD, n, r0 + 1, nl, rp, ci, v, a)
    msg = spk_mpi_last_error(a)
    call check(st /= SPK_OK .and. same_on_all(int(st)) .and. .not. c_associated(a) .and. &
         index(msg, "column") > 0, "a bad column on one rank: " // spk_status_name(st) // ", '" // msg // "'")
    if (rank == 0) print '(a, a, a)', "a bad column on the last rank: '", msg, "'"
    ci(1) = keep
    ! rowptr too short on rank 0: refused on every rank, none left waiting
    st = spk_mpi_matrix_create(MPI_COMM_WORLD, n, r0 + 1, nl, rp(1:merge(nl, nl + 1, rank == 0)), ci, v, a)
    msg = spk_mpi_last_error(a)
    call check(st == SPK_ERR_INVALID_ARG .and. same_on_all(int(st)) .and. .not. c_associated(a) .and. &
         index(msg, "rowptr") > 0, "a short rowptr on rank 0: " // spk_status_name(st) // ", '" // msg // "'")
    call spk_mpi_matrix_destroy(a)
    ! too few iterations: not converged on every rank
    st = spk_mpi_matrix_create(MPI_COMM_WORLD, n, r0 + 1, nl, rp, ci, v, a)
    call check(st == SPK_OK, "create: " // spk_mpi_last_error(a))
    if (.not. all_ranks(c_associated(a))) return
    call spk_options_default(o)
    call check(spk_options_set(o, "maxit", 2) == SPK_OK, "maxit")
    x = 0
    st = spk_mpi_solve(a, SPK_SOLVER_CG, SPK_PRECOND_NONE, o, b, x, res)
    msg = spk_mpi_last_error(a)
    call check(st == SPK_ERR_NOT_CONVERGED .and. same_on_all(int(st)) .and. res%iterations == 2 .and. &
         index(msg, "did not converge") > 0, "maxit 2: " // spk_status_name(st) // ", '" // msg // "'")
    call spk_mpi_matrix_destroy(a)
  end subroutine errors

end program test_fortran_mpi
