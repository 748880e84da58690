/* yaml_events — the baseline of `make bench`: a bare libyaml event parse of
 * a file (libyaml's own example loop), doing nothing with the events. */
#include <stdio.h>
#include <yaml.h>

int main(int argc, char **argv)
{
	yaml_parser_t p;
	yaml_event_t e;
	FILE *f;
	long n = 0;
	int done = 0;

	if (argc != 2 || !(f = fopen(argv[1], "rb"))) {
		fprintf(stderr, "usage: yaml_events FILE\n");
		return 2;
	}
	yaml_parser_initialize(&p);
	yaml_parser_set_input_file(&p, f);
	while (!done) {
		if (!yaml_parser_parse(&p, &e)) {
			fprintf(stderr, "yaml_events: parse error\n");
			return 2;
		}
		done = e.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&e);
		n++;
	}
	yaml_parser_delete(&p);
	fclose(f);
	printf("%ld events\n", n);
	return 0;
}
