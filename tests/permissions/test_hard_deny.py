from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from pseudoclaude.tools.permissions import hard_deny_reason

from .fakes import HOME, WORKSPACE


def reason(command: str, *, cwd: Path | None = None) -> str | None:
    return hard_deny_reason(command, workspace=WORKSPACE, home=HOME, cwd=cwd)


DENIED = [
    # recursive deletion of /, ~, $HOME, the home path, the workspace root
    "rm -rf /",
    "rm -rf /*",
    "rm -r -f /",
    "rm -R /",
    "rm -fr /",
    "rm --recursive --force /",
    "rm --no-preserve-root -rf /",
    "rm / -rf",
    "rm -rf -- /",
    "rm -rf //",
    "rm -rf /.",
    "rm -rf /usr",
    "rm -rf ~",
    "rm -rf ~/",
    "rm -rf ~/*",
    "rm -rf $HOME",
    'rm -rf "$HOME/"',
    "rm -rf ${HOME}",
    "rm -rf /home/u",
    "rm -rf /home",
    "rm -rf /home/u/proj",
    "rm -rf .",
    "rm -rf ./",
    "rm -rf *",
    "rm -rf ./*",
    "rm -rf ..",
    "rm -rf $PWD",
    # quoted and escaped spellings
    "rm -rf '/'",
    '"rm" -rf /',
    "r\\m -rf /",
    "\\rm -rf /",
    "/bin/rm -rf /",
    "rm -rf $'/'",
    "$'rm' -rf $'\\057'",
    "rm -rf $'\\x2f'",
    "echo 'a$' ; rm -rf ~",
    "rm -rf {/,build}",
    "rm -rf $(echo /)",
    "rm -rf $(pwd)",
    # variables: assigned, unset (empty), defaults, variable programs
    "X=/; rm -rf $X",
    "D=$HOME; rm -rf $D",
    "rm -rf $UNSET/",
    'rm -rf "$STEAMROOT/"*',
    "rm -rf ${X:-/}",
    "$RM -rf /",
    "for d in / ; do rm -rf $d; done",
    # cd changes what relative paths mean
    "cd / && rm -rf *",
    "cd ~ && rm -rf .",
    "cd build; rm -rf *",
    "cd .. && rm -rf proj",
    "cd $SOMEWHERE && rm -rf .",
    # hidden in chains, groups, subshells, substitutions
    "git status && rm -rf /",
    "false || rm -rf ~",
    "ls | rm -rf /",
    "sleep 1 & rm -rf /",
    "ls\nrm -rf ~",
    "(rm -rf /)",
    "{ rm -rf /; }",
    "if true; then rm -rf ~; fi",
    "echo $(rm -rf /)",
    'echo "$(rm -rf /)"',
    "echo `rm -rf ~`",
    "cat <(rm -rf /)",
    "diff >(rm -rf /) x",
    "X=$(rm -rf /)",
    "f(){ rm -rf /; }; f",
    # strings run by shells and eval
    "bash -c 'rm -rf /'",
    'sh -c "rm -rf ~"',
    "zsh -c 'cd / && rm -rf *'",
    "bash -lc 'rm -rf /'",
    "bash -o pipefail -c 'rm -rf /'",
    "eval 'rm -rf /'",
    "eval rm -rf /",
    'eval "bash -c \'sh -c \\"rm -rf /\\"\'"',
    "echo 'rm -rf /' | sh",
    "echo -n 'rm -rf ~' | bash",
    "bash <<< 'rm -rf /'",
    "sh <<EOF\nrm -rf /\nEOF",
    "env -S 'rm -rf /'",
    "sudo sh -c 'rm -rf /'",
    "xargs sh -c 'rm -rf ~'",
    "find . -exec sh -c 'rm -rf /' \\;",
    # prefixes
    "sudo rm -rf /",
    "sudo -u root -- rm -rf /",
    "doas rm -rf /",
    "env FOO=1 rm -rf /",
    "FOO=1 rm -rf /",
    "echo / | xargs rm -rf",
    "printf ~ | xargs -0 rm -rf",
    "nohup rm -rf / &",
    "nice -n 10 rm -rf /",
    "nice -10 rm -rf /",
    "timeout 10 rm -rf /",
    "timeout -s KILL 5s rm -rf /",
    "command rm -rf /",
    "exec rm -rf /",
    "time rm -rf /",
    "busybox rm -rf /",
    "sudo env X=1 nice timeout 3 rm -rf ~",
    # what bashlex cannot parse goes through the fallback parser
    "[[ -d x ]] && rm -rf /",
    "case $x in a) rm -rf /;; esac",
    "echo $((1+2)); rm -rf ~",
    "time (rm -rf /)",
    # filesystems and disks
    "mkfs /dev/sda1",
    "mkfs.ext4 /dev/sda1",
    "sudo mkfs.vfat -F 32 /dev/mmcblk0p1",
    "dd if=/dev/zero of=/dev/sda",
    "dd if=image.iso of=/dev/disk2 bs=4m",
    "echo hi > /dev/sda",
    "cat image >> /dev/nvme0n1",
    "cat x &> /dev/hda",
    "cat x >| /dev/vdb",
    "cat x > /dev/mmcblk0",
    "{ cat x; } > /dev/sdb",
    "exec 3>/dev/sda",
    "echo x | tee /dev/sdb",
    # fork bombs, including renamed ones
    ":(){ :|:& };:",
    ":(){ :|: & };:",
    "bomb(){ bomb|bomb& };bomb",
    "function f { f|f& }; f",
    "f() ( f | f & ); f",
    "bash -c ':(){ :|:& };:'",
    # recursive permission changes on /
    "chmod -R 777 /",
    "chmod 777 -R /",
    "chmod --recursive 777 /",
    "chown -R me /",
    "chown -Rv me:me /",
    "sudo chgrp -R staff /*",
    "chmod -R 000 /etc",
    # power
    "shutdown -h now",
    "sudo shutdown -r +1",
    "reboot",
    "halt",
    "poweroff",
    "init 0",
    "init 6",
    "systemctl poweroff",
    "systemctl reboot",
    "sudo systemctl --force halt",
    "ls; sudo reboot",
    "find / -delete",
    "find ~ -delete",
    "find $HOME -mindepth 1 -delete",
    "cd /tmp && find / -name '*.log' -delete",
    "find . -delete",
    "find ~ -exec rm -rf {} +",
    "sudo find / -type f -exec rm {} \\;",
]


@pytest.mark.parametrize("command", DENIED)
def test_dangerous_command_is_refused(command: str) -> None:
    assert reason(command) is not None


ALLOWED = [
    "rm -rf ./build",
    "rm -rf build",
    "rm -rf node_modules dist .pytest_cache",
    "rm -rf src/*",
    "rm -rf ./*.pyc",
    "rm -rf /tmp/scratch",
    "rm -f /tmp/x",
    "rm ~/notes.txt",
    "rm -rf ~/.cache/pseudoclaude",
    'rm -rf "$BUILD_DIR"',
    "X=build; rm -rf $X/",
    "cd build && rm -rf *",
    "cd /tmp/x && rm -rf *",
    'echo "rm -rf /"',
    "echo 'rm -rf /' > notes.txt",
    "git commit -m 'rm -rf /'",
    "grep shutdown log.txt",
    "grep -r 'reboot' .",
    "man shutdown",
    "git reset --hard",
    "git clean -fdx",
    "dd if=/dev/zero of=test.img bs=1M count=1",
    "dd if=/dev/sda of=/dev/null count=1",
    "cat /dev/sda | head -c 10",
    "echo hi > /dev/null 2>&1",
    "chmod -R 755 ./scripts",
    "chmod 644 /etc/hosts.bak",
    "chown me file",
    "systemctl status nginx",
    "echo ':(){ :|:& };:'",
    "f(){ echo hi; }; f | cat",
    "init",
    "ls -la ~",
    "find . -name '*.pyc' -delete",
    "python -c 'print(1)'",
    "bash scripts/build.sh",
    "npm test -- --watch=false",
    "rm -rf $(pwd)/build",
    "echo $'hello\\n'",
    "find . -name '*.o' -exec rm {} +",
    "find build -delete",
    "find ~/.cache/myapp -delete",
    "find . -type d -name __pycache__ -exec rm -rf {} +",
    "find /tmp/scratch -mindepth 1 -delete",
]


@pytest.mark.parametrize("command", ALLOWED)
def test_look_alike_is_not_refused(command: str) -> None:
    assert reason(command) is None


def test_reason_names_the_refused_command_and_what_it_would_destroy() -> None:
    text = reason("git pull && sudo rm -rf ~")
    assert text is not None
    assert "`rm -rf ~`" in text
    assert "/home/u (your home directory)" in text
    assert "every permission mode" in text


def test_reason_for_workspace_contents() -> None:
    text = reason("rm -rf *")
    assert text is not None and "everything inside /home/u/proj (the workspace root)" in text


def test_unparseable_command_is_refused_in_doubt() -> None:
    text = reason('echo "unterminated')
    assert text is not None and "cannot be parsed" in text


def test_nesting_beyond_the_depth_limit_is_refused_in_doubt() -> None:
    command = "echo hi"
    for _ in range(6):
        command = f"eval {shlex.quote(command)}"
    text = reason(command)
    assert text is not None and "nested" in text


def test_dot_means_the_working_directory_not_always_the_workspace() -> None:
    assert reason("rm -rf .", cwd=WORKSPACE / "build") is None
    assert reason("rm -rf ..", cwd=WORKSPACE / "build") is not None
