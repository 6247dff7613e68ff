! consumer.f90 — tiledqr from Fortran through bind(C): factor a random 120 x 80
! matrix (tile 16, 2 threads), rebuild A = Q R and check max|A - QR| <= 1e-12 max|A|.
! Build: gfortran consumer.f90 $(pkg-config --libs tiledqr)
module tiledqr_c
  use iso_c_binding
  implicit none
  type, bind(C) :: tiledqr_options
    integer(c_int) :: tile = 0, inner_block = 0, tree = 0, threads = 0, backend = 0
  end type
  interface
    integer(c_int) function tiledqr_dgeqrf(m, n, a, lda, factors, opts) bind(C, name='tiledqr_dgeqrf')
      import :: c_int, c_int64_t, c_double, c_ptr, tiledqr_options
      integer(c_int64_t), value :: m, n, lda
      real(c_double), intent(inout) :: a(lda, *)
      type(c_ptr), intent(out) :: factors
      type(tiledqr_options), intent(in) :: opts
    end function
    integer(c_int) function tiledqr_dormqr(trans, m, nrhs, factors, b, ldb) bind(C, name='tiledqr_dormqr')
      import :: c_int, c_int64_t, c_double, c_ptr, c_char
      character(kind=c_char), value :: trans
      integer(c_int64_t), value :: m, nrhs, ldb
      type(c_ptr), value :: factors
      real(c_double), intent(inout) :: b(ldb, *)
    end function
    subroutine tiledqr_factors_free(factors) bind(C, name='tiledqr_factors_free')
      import :: c_ptr
      type(c_ptr), value :: factors
    end subroutine
  end interface
end module

program consumer
  use tiledqr_c
  implicit none
  integer(c_int64_t), parameter :: m = 120, n = 80
  real(c_double) :: a(m, n), qr(m, n), err
  type(tiledqr_options) :: opts
  type(c_ptr) :: f
  integer, allocatable :: seed(:)
  integer :: k, rc
  call random_seed(size=k)
  allocate(seed(k))
  seed = 42  ! seed 42
  call random_seed(put=seed)
  call random_number(a)
  qr = a
  opts%tile = 16
  opts%threads = 2
  rc = tiledqr_dgeqrf(m, n, qr, m, f, opts)          ! qr <- R
  if (rc == 0) rc = tiledqr_dormqr('N', m, n, f, qr, m)  ! qr <- Q R
  if (rc /= 0) then
    print '(a, i0)', 'tiledqr failed with status ', rc
    stop 1
  end if
  err = maxval(abs(a - qr)) / maxval(abs(a))
  print '(a, es9.2)', 'tiledqr from Fortran: 120x80, max|A - QR| / max|A| =', err
  call tiledqr_factors_free(f)
  if (err > 1d-12) stop 1
end program
