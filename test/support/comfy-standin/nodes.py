"""The stand-in's node registry and custom node loader: loads a folder from custom_nodes/ the way ComfyUI's nodes.py
does in its current releases (asynchronous loading inside the running loop; a folder pack imported under its path
with dots replaced, a .py file under its name; WEB_DIRECTORY registered under the folder's base name)."""
import importlib.util
import logging
import os
import sys
import traceback

# The stand-in has no built-in nodes; custom node packs add theirs here.
NODE_CLASS_MAPPINGS = {}
NODE_DISPLAY_NAME_MAPPINGS = {}
# Module name -> absolute folder of its frontend files, served under /extensions/<module name>/.
EXTENSION_WEB_DIRS = {}
# Module path -> whether it loaded, for the stand-in's own report.
LOADED = {}


async def load_custom_node(module_path, ignore=frozenset(), module_parent="custom_nodes"):
    """Import one custom node folder (its __init__.py) or .py file, then read its mappings."""
    module_name = os.path.basename(module_path)
    if os.path.isfile(module_path):
        module_name = os.path.splitext(module_path)[0]
        sys_module_name = module_name
    else:
        # A pack's relative imports resolve against this key, so it must hold no dots of its own.
        sys_module_name = module_path.replace(".", "_x_")
    try:
        if os.path.isfile(module_path):
            spec = importlib.util.spec_from_file_location(sys_module_name, module_path)
            module_dir = os.path.dirname(module_path)
        else:
            spec = importlib.util.spec_from_file_location(sys_module_name, os.path.join(module_path, "__init__.py"))
            module_dir = module_path
        module = importlib.util.module_from_spec(spec)
        sys.modules[sys_module_name] = module
        spec.loader.exec_module(module)

        web = getattr(module, "WEB_DIRECTORY", None)
        if web is not None:
            web_dir = os.path.abspath(os.path.join(module_dir, web))
            if os.path.isdir(web_dir):
                EXTENSION_WEB_DIRS[module_name] = web_dir

        mappings = getattr(module, "NODE_CLASS_MAPPINGS", None)
        if mappings is None:
            logging.warning("Skip %s module for custom nodes due to the lack of NODE_CLASS_MAPPINGS.", module_path)
            return False
        for name, node_cls in mappings.items():
            if name not in ignore:
                NODE_CLASS_MAPPINGS[name] = node_cls
                node_cls.RELATIVE_PYTHON_MODULE = "{}.{}".format(module_parent, os.path.basename(module_path))
        names = getattr(module, "NODE_DISPLAY_NAME_MAPPINGS", None)
        if names is not None:
            NODE_DISPLAY_NAME_MAPPINGS.update(names)
        return True
    except Exception as e:  # a broken pack must not stop the server, as in ComfyUI
        logging.warning(traceback.format_exc())
        logging.warning("Cannot import %s module for custom nodes: %s", module_path, e)
        return False


async def init_external_custom_nodes(custom_nodes_dir):
    """Load every folder and .py file in custom_nodes_dir (skipping *.disabled and __pycache__), logging each."""
    base = set(NODE_CLASS_MAPPINGS.keys())
    for entry in sorted(os.listdir(os.path.realpath(custom_nodes_dir))):
        if entry == "__pycache__":
            continue
        module_path = os.path.join(custom_nodes_dir, entry)
        if os.path.isfile(module_path) and os.path.splitext(module_path)[1] != ".py":
            continue
        if module_path.endswith(".disabled"):
            continue
        ok = await load_custom_node(module_path, base)
        LOADED[module_path] = ok
        logging.info("custom node %s%s", module_path, "" if ok else " (IMPORT FAILED)")
