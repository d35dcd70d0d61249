/* `winagent doctor [--json]`: the machine's health for an agent, one verdict (ok,
 * warning, problem) per line with what to do: Windows' version, the session, integrity
 * and UIAccess, DPI awareness and the monitors, UAC's secure desktop, UI Automation,
 * the model's settings and whether its server answers. The facts come from the backend
 * (backend.h system_info, monitors); the verdicts are made here, the same for every
 * backend. */
#ifndef WINAGENT_AGENT_FRONT_DOCTOR_H
#define WINAGENT_AGENT_FRONT_DOCTOR_H

/* argv[0] is "doctor". Exit code 0 when no line is a problem, 1 (EXIT_USAGE) when one
 * is or the command line is wrong. */
int cmd_doctor(int argc, char **argv);

#endif
