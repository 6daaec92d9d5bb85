# `cmake --install`: the coulomb command, the headers, the static libraries
# and a CMake package, so that find_package(Coulomb) gives Coulomb::coulomb
# and the browser viewer Coulomb::viewer.
# Pinocchio, Coal, yaml-cpp, HDF5 and Eigen are found again by the package's
# config file (the same wheels and Debian packages the build used).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(COULOMB_EXPORTED_TARGETS
    coulomb_library coulomb_base coulomb_eigen coulomb_hdf5 coulomb_warnings coulomb_math
    coulomb_contact coulomb_solvers coulomb_io coulomb_fclib coulomb_geometry
    coulomb_multibody coulomb_sim coulomb_scenes coulomb_run_io coulomb_viewer)
install(TARGETS ${COULOMB_EXPORTED_TARGETS} EXPORT CoulombTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS coulomb RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/src/coulomb DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(EXPORT CoulombTargets NAMESPACE Coulomb::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Coulomb)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/CoulombConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/CoulombConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Coulomb)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/CoulombConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/CoulombConfig.cmake
              ${PROJECT_BINARY_DIR}/CoulombConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Coulomb)
