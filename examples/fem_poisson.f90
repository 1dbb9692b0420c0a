! fem_poisson.f90 -- a small finite-element program that uses spk from Fortran.
!
! Solves -div(k grad u) = f on the unit square, u = 0 on the boundary, with
! linear triangles on an n x n grid of squares (each cut into two triangles),
! for the manufactured solutions
!     u1 = sin(pi x) sin(pi y),       f1 = 2 pi^2 k u1
!     u2 = x (1-x) y (1-y) e^x,       f2 = -k lap(u2)
! The program assembles the stiffness matrix element by element into CSR with
! 1-based indices (duplicates left for spk to sum), creates one spk solver,
! solves for both right-hand sides, then changes k from 1 to 3 (same pattern:
! spk_matrix_update_values) and solves again.  Each time it checks the nodal
! error max |u_h - u| against the exact solution: it must be O(h^2), so the
! program runs two meshes (n and 2n) and requires the error to fall by at
! least 3x.  Exit status 0 when every check holds.
!
!   fem_poisson [n]        (default 32)
program fem_poisson
  use, intrinsic :: iso_c_binding
  use spk
  implicit none
  integer :: n, argc, fails
  character(len=32) :: arg
  real(c_double) :: e1(2), e2(2), e3(2)

  n = 32
  argc = command_argument_count()
  if (argc >= 1) then
     call get_command_argument(1, arg)
     read(arg, *) n
  end if
  fails = 0
  call run(n, e1(1), e2(1), e3(1))
  call run(2 * n, e1(2), e2(2), e3(2))
  call expect("u1, k = 1", e1)
  call expect("u2, k = 1", e2)
  call expect("u1, k = 3 (updated values)", e3)
  if (fails > 0) then
     print '(a,i0,a)', "fem_poisson: ", fails, " check(s) failed"
     stop 1
  end if
  print '(a)', "fem_poisson: every check passed"

contains

  subroutine expect(what, e)
    character(len=*), intent(in) :: what
    real(c_double), intent(in) :: e(2)
    print '(a,a,es10.3,a,es10.3,a,f5.2)', what, ": max nodal error ", e(1), " -> ", e(2), &
         " on the refined mesh, ratio ", e(1) / e(2)
    if (.not. (e(2) < e(1) / 3 .and. e(2) < 1d-2)) then
       print '(a)', "  FAILED: the error is not O(h^2)"
       fails = fails + 1
    end if
  end subroutine expect

  ! unknown number of grid node (i, j), 0 <= i, j <= n, or 0 on the boundary
  pure integer function node(i, j, n)
    integer, intent(in) :: i, j, n
    if (i <= 0 .or. j <= 0 .or. i >= n .or. j >= n) then
       node = 0
    else
       node = (j - 1) * (n - 1) + i
    end if
  end function node

  real(c_double) function exact(which, x, y)
    integer, intent(in) :: which
    real(c_double), intent(in) :: x, y
    real(c_double), parameter :: pi = 3.14159265358979323846d0
    if (which == 1) then
       exact = sin(pi * x) * sin(pi * y)
    else
       exact = x * (1 - x) * y * (1 - y) * exp(x)
    end if
  end function exact

  ! the right-hand side f for diffusion coefficient k
  real(c_double) function source(which, k, x, y)
    integer, intent(in) :: which
    real(c_double), intent(in) :: k, x, y
    real(c_double), parameter :: pi = 3.14159265358979323846d0
    real(c_double) :: uxx, uyy
    if (which == 1) then
       source = 2 * pi**2 * k * sin(pi * x) * sin(pi * y)
    else
       uxx = y * (1 - y) * exp(x) * (-x**2 - 3 * x)   ! d2/dx2 of x(1-x)e^x = -(x^2 + 3x) e^x
       uyy = -2 * x * (1 - x) * exp(x)
       source = -k * (uxx + uyy)
    end if
  end function source

  ! Element loop: the triangles of square (i, j) and their three nodes.
  subroutine triangle(i, j, t, gi, gj)
    integer, intent(in) :: i, j, t
    integer, intent(out) :: gi(3), gj(3)
    if (t == 1) then
       gi = [i, i + 1, i + 1]; gj = [j, j, j + 1]
    else
       gi = [i, i + 1, i];     gj = [j, j + 1, j + 1]
    end if
  end subroutine triangle

  ! Assemble: pass 1 counts the entries of each row, pass 2 (fill) writes them
  ! in element order; the layout is the same for every k, so new values can be
  ! handed to spk_matrix_update_values.
  subroutine assemble(n, k, rowptr, colind, val, fill)
    integer, intent(in) :: n
    real(c_double), intent(in) :: k
    integer(c_int), intent(inout) :: rowptr(:), colind(:)
    real(c_double), intent(inout) :: val(:)
    logical, intent(in) :: fill
    integer :: i, j, t, a, b, ra, cb, gi(3), gj(3)
    integer, allocatable :: next(:)
    real(c_double) :: h, x(3), y(3), bx(3), by(3), area, ke
    h = 1d0 / n
    if (.not. fill) rowptr = 0
    if (fill) then
       allocate(next(size(rowptr) - 1))
       next = rowptr(1:size(rowptr) - 1)
    end if
    do j = 0, n - 1
       do i = 0, n - 1
          do t = 1, 2
             call triangle(i, j, t, gi, gj)
             x = gi * h
             y = gj * h
             area = 0.5d0 * ((x(2) - x(1)) * (y(3) - y(1)) - (x(3) - x(1)) * (y(2) - y(1)))
             bx = [y(2) - y(3), y(3) - y(1), y(1) - y(2)] / (2 * area)   ! grad of the hat functions
             by = [x(3) - x(2), x(1) - x(3), x(2) - x(1)] / (2 * area)
             do a = 1, 3
                ra = node(gi(a), gj(a), n)
                if (ra == 0) cycle
                do b = 1, 3
                   cb = node(gi(b), gj(b), n)
                   if (cb == 0) cycle
                   if (.not. fill) then
                      rowptr(ra + 1) = rowptr(ra + 1) + 1
                   else
                      ke = k * area * (bx(a) * bx(b) + by(a) * by(b))
                      colind(next(ra)) = cb
                      val(next(ra)) = ke
                      next(ra) = next(ra) + 1
                   end if
                end do
             end do
          end do
       end do
    end do
    if (.not. fill) then   ! counts -> 1-based row pointers
       rowptr(1) = 1
       do a = 2, size(rowptr)
          rowptr(a) = rowptr(a) + rowptr(a - 1)
       end do
    end if
  end subroutine assemble

  ! load vector by one-point quadrature at each triangle's centroid
  subroutine load(n, which, k, rhs)
    integer, intent(in) :: n, which
    real(c_double), intent(in) :: k
    real(c_double), intent(out) :: rhs(:)
    integer :: i, j, t, a, ra, gi(3), gj(3)
    real(c_double) :: h, fc
    h = 1d0 / n
    rhs = 0
    do j = 0, n - 1
       do i = 0, n - 1
          do t = 1, 2
             call triangle(i, j, t, gi, gj)
             fc = source(which, k, sum(gi) * h / 3, sum(gj) * h / 3)
             do a = 1, 3
                ra = node(gi(a), gj(a), n)
                if (ra /= 0) rhs(ra) = rhs(ra) + fc * (0.5d0 * h * h) / 3
             end do
          end do
       end do
    end do
  end subroutine load

  real(c_double) function nodal_error(n, which, u)
    integer, intent(in) :: n, which
    real(c_double), intent(in) :: u(:)
    integer :: i, j
    nodal_error = 0
    do j = 1, n - 1
       do i = 1, n - 1
          nodal_error = max(nodal_error, abs(u(node(i, j, n)) - exact(which, i / real(n, c_double), &
               j / real(n, c_double))))
       end do
    end do
  end function nodal_error

  subroutine check(st, ctx, what)
    integer(c_int), intent(in) :: st
    type(c_ptr), intent(in) :: ctx
    character(len=*), intent(in) :: what
    if (st /= SPK_OK) then
       print '(a,a,a,a,a,a)', "fem_poisson: ", what, ": ", spk_status_name(st), ": ", spk_last_error(ctx)
       stop 1
    end if
  end subroutine check

  subroutine run(n, err1, err2, err3)
    integer, intent(in) :: n
    real(c_double), intent(out) :: err1, err2, err3
    integer(c_int) :: m, nnz
    integer(c_int), allocatable :: rowptr(:), colind(:)
    real(c_double), allocatable :: val(:), rhs(:), u(:)
    type(c_ptr) :: ctx, a, s
    type(spk_options) :: opts
    type(spk_result) :: res

    m = (n - 1)**2
    allocate(rowptr(m + 1), rhs(m), u(m))
    allocate(colind(1), val(1))
    call assemble(n, 1d0, rowptr, colind, val, .false.)
    nnz = rowptr(m + 1) - 1
    deallocate(colind, val)
    allocate(colind(nnz), val(nnz))
    call assemble(n, 1d0, rowptr, colind, val, .true.)

    call check(spk_context_create(ctx, SPK_DEVICE_AUTO), ctx, "context")
    call check(spk_matrix_from_csr(ctx, m, m, rowptr, colind, val, a), ctx, "matrix")
    call spk_options_default(opts)
    call check(spk_options_set(opts, "rtol", 1d-12), ctx, "rtol")
    call check(spk_solver_create(ctx, a, SPK_SOLVER_CG, SPK_PRECOND_IC0, opts, s, format="auto"), ctx, "solver")

    call load(n, 1, 1d0, rhs)
    u = 0
    call check(spk_solve(s, rhs, u, res), ctx, "solve u1")
    err1 = nodal_error(n, 1, u)
    print '(a,i4,a,i7,a,i7,a,a,a,a,a,a,a,i4,a,es9.2)', "n =", n, ": ", m, " unknowns, ", nnz, &
         " entries assembled; ", spk_solver_method(s), " + ", spk_solver_precond(s), " on ", &
         spk_context_device(ctx), ", u1 in", res%iterations, " iterations, true residual", res%true_relres

    call load(n, 2, 1d0, rhs)   ! a second right-hand side on the same solver
    u = 0
    call check(spk_solve(s, rhs, u, res), ctx, "solve u2")
    err2 = nodal_error(n, 2, u)

    call assemble(n, 3d0, rowptr, colind, val, .true.)   ! k = 3: same pattern, new values
    call check(spk_matrix_update_values(a, val), ctx, "update values")
    call load(n, 1, 3d0, rhs)
    u = 0
    call check(spk_solve(s, rhs, u, res), ctx, "solve u1 with k = 3")
    err3 = nodal_error(n, 1, u)

    call spk_solver_destroy(s)
    call spk_matrix_destroy(a)
    call spk_context_destroy(ctx)
  end subroutine run

end program fem_poisson
