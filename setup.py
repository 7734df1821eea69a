"""Package set-up, reading settings.ini the nbdev way.

`csrc/` (CUDA kernels, the SIMT emulator runtime) lives at the top level of the repository and is
shipped inside the package as `verify_kernel/csrc` (sdist via MANIFEST.in, wheel via package_dir);
`verify_kernel.paths.csrc_dir()` finds it in a source checkout, an editable install or a wheel.
"""
from configparser import ConfigParser
import setuptools, shlex

config = ConfigParser(delimiters=['='])
config.read('settings.ini', encoding='utf-8')
cfg = config['DEFAULT']

cfg_keys = 'version description keywords author author_email'.split()
expected = cfg_keys + "lib_name user branch license status min_python audience language".split()
for o in expected: assert o in cfg, "missing expected setting: {}".format(o)
setup_cfg = {o:cfg[o] for o in cfg_keys}

licenses = {
    'apache2': ('Apache Software License 2.0','OSI Approved :: Apache Software License'),
}
statuses = [ '1 - Planning', '2 - Pre-Alpha', '3 - Alpha',
    '4 - Beta', '5 - Production/Stable', '6 - Mature', '7 - Inactive' ]
py_versions = '3.10 3.11 3.12 3.13'.split()

requirements = shlex.split(cfg.get('requirements', ''))
dev_requirements = shlex.split(cfg.get('dev_requirements', ''))
min_python = cfg['min_python']
lic = licenses.get(cfg['license'].lower(), (cfg['license'], None))

# ship the top-level csrc/ as package data of verify_kernel.csrc
csrc_patterns = ['*.cu', '*.cuh', '*.h', '*.hpp', '*.cpp', '*.S', '**/*.cu', '**/*.cuh', '**/*.h',
                 '**/*.hpp', '**/*.cpp', '**/*.S']

setuptools.setup(
    name = cfg['lib_name'],
    license = lic[0],
    classifiers = [
        'Development Status :: ' + statuses[int(cfg['status'])],
        'Intended Audience :: ' + cfg['audience'].title(),
        'Natural Language :: ' + cfg['language'].title(),
    ] + ['Programming Language :: Python :: '+o for o in py_versions[py_versions.index(min_python):]]
      + (['License :: ' + lic[1] ] if lic[1] else []),
    url = cfg['git_url'],
    packages = setuptools.find_packages(include=['verify_kernel', 'verify_kernel.*']) + ['verify_kernel.csrc'],
    package_dir = {'verify_kernel.csrc': 'csrc'},
    package_data = {'verify_kernel.csrc': csrc_patterns},
    include_package_data = True,
    install_requires = requirements,
    extras_require={ 'dev': dev_requirements },
    dependency_links = cfg.get('dep_links','').split(),
    python_requires  = '>=' + cfg['min_python'],
    long_description = open('README.md', encoding='utf-8').read(),
    long_description_content_type = 'text/markdown',
    zip_safe = False,
    entry_points = {
        'console_scripts': cfg.get('console_scripts','').split(),
        'nbdev': [f'{cfg.get("lib_path")}={cfg.get("lib_path")}._modidx:d'],
        # SGLang's plugin group: load_plugins() calls register(), which adds `--attention-backend verify_kernel`
        'sglang.srt.plugins': ['verify_kernel = verify_kernel.backend:register'],
        # vLLM's plugin group: load_general_plugins() calls register(), which adds `--attention-backend VERIFY_KERNEL_MLA`
        'vllm.general_plugins': ['verify_kernel = verify_kernel.vllm_plugin:register'],
    },
    **setup_cfg)
