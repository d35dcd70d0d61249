# Starts winagent.exe from this folder: loads .env, records the PID, forwards the
# arguments and returns winagent's exit code.
#   .\run.ps1 "open Notepad and type hello"
#   .\run.ps1 windows --json
[CmdletBinding()]
param(
    [Parameter(ValueFromRemainingArguments = $true)]
    [string[]]$AgentArgs
)
$ErrorActionPreference = 'Stop'
$here = Split-Path -Parent $MyInvocation.MyCommand.Path
$exe = Join-Path $here 'winagent.exe'
if (-not (Test-Path $exe)) {
    $exe = Join-Path $here 'build\win64\winagent.exe'
}
if (-not (Test-Path $exe)) {
    Write-Error "winagent.exe not found beside run.ps1"
    exit 1
}

# .env: KEY=VALUE lines, '#' comments, optional quotes. Read as bytes and decoded as
# UTF-8 so a BOM (PowerShell 5.1 writes one) never sticks to the first key. Variables
# already set in the environment win.
$envFile = Join-Path $here '.env'
if (-not (Test-Path $envFile)) { $envFile = Join-Path (Get-Location) '.env' }
if (Test-Path $envFile) {
    $text = [System.Text.Encoding]::UTF8.GetString([System.IO.File]::ReadAllBytes($envFile))
    $text = $text.TrimStart([char]0xFEFF)
    foreach ($line in $text -split "`r?`n") {
        $t = $line.Trim()
        if ($t -eq '' -or $t.StartsWith('#')) { continue }
        $eq = $t.IndexOf('=')
        if ($eq -lt 1) { continue }
        $key = $t.Substring(0, $eq).Trim()
        if ($key.StartsWith('export ')) { $key = $key.Substring(7).Trim() }
        $val = $t.Substring($eq + 1).Trim()
        if ($val.Length -ge 2 -and (($val[0] -eq '"' -and $val[-1] -eq '"') -or
                                    ($val[0] -eq "'" -and $val[-1] -eq "'"))) {
            $val = $val.Substring(1, $val.Length - 2)
        }
        if (-not [System.Environment]::GetEnvironmentVariable($key, 'Process')) {
            [System.Environment]::SetEnvironmentVariable($key, $val, 'Process')
        }
    }
}

# Arguments are passed through one by one; Start-Process would re-join and re-split them.
$pidFile = Join-Path $env:TEMP 'winagent.pid'
$psi = New-Object System.Diagnostics.ProcessStartInfo
$psi.FileName = $exe
$psi.UseShellExecute = $false
$quoted = foreach ($a in $AgentArgs) {
    if ($a -eq '') { '""' }
    elseif ($a -notmatch '[\s"]') { $a }
    else { '"' + ($a -replace '(\\*)"', '$1$1\"' -replace '(\\+)$', '$1$1') + '"' }
}
$psi.Arguments = ($quoted -join ' ')
$proc = [System.Diagnostics.Process]::Start($psi)
[System.IO.File]::WriteAllText($pidFile, [string]$proc.Id)
try {
    $proc.WaitForExit()
    exit $proc.ExitCode
}
finally {
    Remove-Item -ErrorAction SilentlyContinue $pidFile
}
