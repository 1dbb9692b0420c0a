! test_fortran.f90 -- the Fortran module (fortran/spk.f90): 1-based and
! 0-based CSR give the same solution, options set by key and the format reach
! the solver, refused options say why, the opaque spk_options holds the C
! struct, a failed call returns its status with the library's message, names
! and version strings come back as Fortran characters; a Fortran preconditioner
! (SPK_PRECOND_USER) and iterate callback through c_funloc, and GMRES.
! the callbacks the test passes to the library: in a module, since an internal procedure
! that uses its host's variables would need a trampoline (an executable stack)
module test_fortran_callbacks
  use, intrinsic :: iso_c_binding
  implicit none
  integer :: applies = 0, iterates = 0
contains
  ! z = D^-1 r, D^-1 at user
  integer(c_int) function jacobi(user, m, rr, z) bind(c)
    type(c_ptr), value :: user
    integer(c_int), value :: m
    real(c_double), intent(in) :: rr(m)
    real(c_double), intent(out) :: z(m)
    real(c_double), pointer :: d(:)
    call c_f_pointer(user, d, [m])
    z = d * rr
    applies = applies + 1
    jacobi = 0
  end function jacobi

  subroutine seen(user, it, xk) bind(c)
    type(c_ptr), value :: user
    integer(c_int), value :: it
    real(c_double), intent(in) :: xk(*)
    iterates = iterates + 1
  end subroutine seen

end module test_fortran_callbacks

program test_fortran
  use, intrinsic :: iso_c_binding
  use spk
  use test_fortran_callbacks
  implicit none
  integer, parameter :: n = 50
  integer(c_int) :: rp1(n + 1), ci1(3 * n), rp0(n + 1), ci0(3 * n), st, k, i, fails
  character(len=:), allocatable :: msg
  real(c_double), target :: v(3 * n), b(n), x1(n), x0(n), xs(n)
  type(c_ptr) :: ctx, a1, a0, s1, s0, s2, bad
  type(spk_options) :: o, o2
  type(spk_result) :: r
  real(c_double), target :: dinv(n)
  integer :: its_user
  complex(c_double_complex) :: zv(3 * n), zb(n), zx(n), zs(n)
  type(c_ptr) :: za, zsolver

  fails = 0
  ! tridiagonal [-1 4 -1], 1-based
  k = 0
  rp1(1) = 1
  do i = 1, n
     if (i > 1) then
        k = k + 1; ci1(k) = i - 1; v(k) = -1
     end if
     k = k + 1; ci1(k) = i; v(k) = 4
     if (i < n) then
        k = k + 1; ci1(k) = i + 1; v(k) = -1
     end if
     rp1(i + 1) = k + 1
  end do
  rp0 = rp1 - 1
  ci0 = ci1 - 1
  do i = 1, n
     xs(i) = sin(real(i, c_double))
  end do
  b = 4 * xs
  b(2:n) = b(2:n) - xs(1:n - 1)
  b(1:n - 1) = b(1:n - 1) - xs(2:n)

  call ok(spk_context_create(ctx, SPK_DEVICE_HOST), "context")
  call check(spk_context_device(ctx) == "host", "device name '" // spk_context_device(ctx) // "'")
  call ok(spk_context_set_threads(ctx, 2), "two host threads")
  call check(spk_context_threads(ctx) == 2 .or. spk_context_threads(ctx) == 1, "threads in use")
  call check(spk_context_set_threads(ctx, -1) /= SPK_OK, "threads -1 accepted")
  call check(len(spk_version()) >= 5, "version '" // spk_version() // "'")
  call ok(spk_matrix_from_csr(ctx, n, n, rp1, ci1(1:k), v(1:k), a1), "1-based matrix")
  call ok(spk_matrix_from_csr(ctx, n, n, rp0, ci0(1:k), v(1:k), a0, base=0), "0-based matrix")
  call check(c_sizeof(o) >= spk_options_size(), "type(spk_options) smaller than the C struct")
  call spk_options_default(o)
  call check(spk_options_get(o, "rtol") == "1e-8" .and. spk_options_get(o, "maxit") == "10000" .and. &
       spk_options_get(o, "dtol") == "1e8", "defaults: rtol " // spk_options_get(o, "rtol"))
  call ok(spk_options_set(o, "rtol", 1d-12), "rtol by key")
  call check(spk_options_get(o, "rtol") == "1e-12", "rtol set to " // spk_options_get(o, "rtol"))
  ! refused: a value out of range, an unknown key, a combination; each says why
  st = spk_options_set(o, "rtol", 2d0, msg)
  call check(st == SPK_ERR_INVALID_ARG .and. index(msg, "rtol must be a number in [0, 1)") > 0, "rtol 2: " // msg)
  st = spk_options_set(o, "sel-c", 8, msg)
  call check(st == SPK_ERR_NOT_FOUND .and. index(msg, "did you mean sell-c?") > 0, "sel-c: " // msg)
  o2 = o
  st = spk_options_parse(o2, "precond-isai, precond-sweeps=2", msg)
  call check(st == SPK_ERR_INVALID_ARG .and. index(msg, "choose one") > 0, "isai and sweeps: " // msg)
  o2 = o
  call ok(spk_options_parse(o2, "vector-ops=fused, shift=off, maxit=500"), "parse")
  call ok(spk_options_set(o2, "keep-history", .true.), "a switch as a logical")
  call check(spk_options_get(o2, "vector-ops") == "fused" .and. spk_options_get(o2, "shift") == "off" .and. &
       spk_options_get(o2, "maxit") == "500" .and. spk_options_get(o2, "keep-history") == "on", "parsed")
  call ok(spk_solver_create(ctx, a1, SPK_SOLVER_CG, SPK_PRECOND_JACOBI, o, s1, format="csr"), "solver 1")
  call ok(spk_solver_create(ctx, a0, SPK_SOLVER_BICGSTAB, SPK_PRECOND_ILU0, o, s0), "solver 0")
  call check(spk_solver_method(s1) == "cg" .and. spk_solver_precond(s1) == "jacobi" .and. &
       spk_solver_format(s1) == "csr", "solver 1 is " // spk_solver_method(s1) // " + " // &
       spk_solver_precond(s1) // " on " // spk_solver_format(s1))
  call check(spk_solver_method(s0) == "bicgstab", "solver 0 is " // spk_solver_method(s0))
  ! the sweeps taken: none for Jacobi, the 2 asked for with IC(0) by sweeps
  o2 = o
  call ok(spk_options_set(o2, "precond-sweeps", 2), "sweeps by key")
  call ok(spk_solver_create(ctx, a1, SPK_SOLVER_CG, SPK_PRECOND_IC0, o2, s2), "solver 2")
  call check(spk_solver_precond_sweeps(s1) == 0 .and. spk_solver_precond_sweeps(s2) == 2, &
       "sweeps of solver 1 and 2: " // spk_solver_precond(s2))
  call spk_solver_destroy(s2)
  x1 = 0
  x0 = 0
  call ok(spk_solve(s1, b, x1, r), "solve 1")
  call check(r%iterations > 0 .and. r%true_relres < 1d-11, "solve 1: " // spk_reason_name(r%reason))
  call ok(spk_solve(s0, b, x0, r), "solve 0")
  call check(maxval(abs(x1 - xs)) < 1d-9 .and. maxval(abs(x0 - xs)) < 1d-9, "solutions differ from x*")

  ! new values, same layout: A -> 2A, so the solution halves
  call ok(spk_matrix_update_values(a1, 2 * v(1:k)), "update values")
  x1 = 0
  call ok(spk_solve(s1, b, x1, r), "solve after update")
  call check(maxval(abs(2 * x1 - xs)) < 1d-9, "solution after update")

  ! a failure: status and message
  st = spk_solver_create(ctx, a1, SPK_SOLVER_CG, SPK_PRECOND_IC0, o, bad, format="nosuch")
  call check(st == SPK_ERR_NOT_FOUND, "unknown format: status " // spk_status_name(st))
  st = spk_options_set(o2, "format", "nosuch", msg)
  call check(st == SPK_ERR_NOT_FOUND .and. index(msg, "nosuch") > 0, "unknown format: " // msg)
  call ok(spk_options_set(o2, "maxit", 1), "maxit 1")
  call ok(spk_solver_create(ctx, a1, SPK_SOLVER_CG, SPK_PRECOND_JACOBI, o2, s2), "solver of one iteration")
  x1 = 0
  st = spk_solve(s2, b, x1, r)
  call check(st == SPK_ERR_NOT_CONVERGED, "one iteration: " // spk_status_name(st))
  call check(index(spk_last_error(ctx), "did not converge in 1 iteration") > 0, &
       "message '" // spk_last_error(ctx) // "'")
  ! device addresses on a host context: refused, saying why
  st = spk_solve_device(s2, c_loc(b), c_loc(x1), r)
  call check(st == SPK_ERR_INVALID_ARG .or. st == SPK_ERR_UNSUPPORTED, "solve_device on the host: " &
       // spk_status_name(st))
  call check(index(spk_last_error(ctx), "context runs on the host") > 0 .or. &
       index(spk_last_error(ctx), "no CUDA support") > 0, "message '" // spk_last_error(ctx) // "'")
  call spk_solver_destroy(s2)
  st = spk_matrix_from_csr(ctx, n, n, rp1(1:n), ci1(1:k), v(1:k), bad)
  call check(st == SPK_ERR_INVALID_ARG, "short row pointer array: " // spk_status_name(st))

  ! the caller's preconditioner (a Fortran Jacobi) gives spk's Jacobi's iterations, GMRES too
  call ok(spk_matrix_update_values(a1, v(1:k)), "values back")
  do i = 1, n
     dinv(i) = 0.25d0
  end do
  applies = 0
  o2 = o
  call spk_options_set_precond(o2, c_funloc(jacobi), c_loc(dinv))
  call spk_options_set_iterate(o2, c_funloc(seen), c_null_ptr)
  call ok(spk_solver_create(ctx, a1, SPK_SOLVER_CG, SPK_PRECOND_USER, o2, s2), "solver with a Fortran M")
  x1 = 0
  iterates = 0
  call ok(spk_solve(s2, b, x1, r), "solve with a Fortran M")
  call check(spk_solver_precond(s2) == "user" .and. applies >= r%iterations .and. iterates == r%iterations .and. &
       maxval(abs(x1 - xs)) < 1d-9, "Fortran M: " // spk_solver_precond(s2))
  its_user = r%iterations
  call spk_solver_destroy(s2)
  x1 = 0
  call ok(spk_solve(s1, b, x1, r), "spk's Jacobi")
  call check(r%iterations == its_user, "the Fortran Jacobi's iterations differ from spk's")
  call ok(spk_solver_create(ctx, a0, SPK_SOLVER_GMRES, SPK_PRECOND_ILU0, o, s2), "GMRES")
  x0 = 0
  call ok(spk_solve(s2, b, x0, r), "GMRES solve")
  call check(spk_solver_method(s2) == "gmres" .and. maxval(abs(x0 - xs)) < 1d-9 .and. spk_solver_pivoted(s2) == -1, &
       "GMRES: " // spk_solver_method(s2))
  call spk_solver_destroy(s2)

  ! complex symmetric: the tridiagonal with a complex shift on the diagonal, COCG by default
  zv = cmplx(v, 0, c_double)
  do i = 1, n
     zs(i) = cmplx(sin(real(i, c_double)), cos(real(i, c_double)), c_double)
  end do
  do i = 1, n
     do k = rp1(i), rp1(i + 1) - 1
        if (ci1(k) == i) zv(k) = cmplx(3.5d0, -0.4d0, c_double)
     end do
  end do
  zb = cmplx(3.5d0, -0.4d0, c_double) * zs
  zb(2:n) = zb(2:n) - zs(1:n - 1)
  zb(1:n - 1) = zb(1:n - 1) - zs(2:n)
  call ok(spk_matrix_from_csr(ctx, n, n, rp1, ci1, zv, za), "complex matrix (1-based)")
  call check(spk_matrix_is_complex(za) == 1, "complex matrix")
  call ok(spk_solver_create(ctx, za, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, o, zsolver), "complex solver")
  zx = 0
  call ok(spk_solve(zsolver, zb, zx, r), "complex solve")
  call check(spk_solver_method(zsolver) == "cocg" .and. maxval(abs(zx - zs)) < 1d-8, &
       "complex: " // spk_solver_method(zsolver))
  call check(spk_solve(zsolver, b, x1, r) == SPK_ERR_INVALID_ARG, "a real solve of a complex matrix")
  call ok(spk_matrix_update_values(za, 2 * zv), "complex values")
  zx = 0
  call ok(spk_solve(zsolver, zb, zx, r), "complex solve after new values")
  call check(maxval(abs(2 * zx - zs)) < 1d-8, "complex solve after new values")
  call spk_solver_destroy(zsolver)
  call spk_matrix_destroy(za)

  call spk_solver_destroy(s1)
  call spk_solver_destroy(s0)
  call spk_matrix_destroy(a1)
  call spk_matrix_destroy(a0)
  call spk_context_destroy(ctx)
  if (allocated(msg)) deallocate(msg)  ! LeakSanitizer counts the main program's allocatables as leaks
  if (fails > 0) then
     print '(a,i0,a)', "test_fortran: ", fails, " check(s) failed"
     stop 1
  end if
  print '(a)', "test_fortran: all checks passed"

contains

  subroutine ok(status, what)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: what
    if (status /= SPK_OK) then
       print '(a,a,a,a,a,a)', "FAILED ", what, ": ", spk_status_name(status), ": ", spk_last_error(ctx)
       fails = fails + 1
    end if
  end subroutine ok

  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (.not. cond) then
       print '(a,a)', "FAILED ", what
       fails = fails + 1
    end if
  end subroutine check
end program test_fortran
