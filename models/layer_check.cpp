// The probe program of each model package (models/CMakeLists.txt, layer_check_<package>):
// the package's library is linked into it whole, with only the packages it declares, so
// the program builds only if every symbol the package uses comes from those.
int main() { return 0; }
