package dev.leasebox.cli;

import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.Model.OptionSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Splits a command's option list in its help: the options most users need first, in the order given, then
 * the tuning options under their own heading, each documented once.
 */
final class OptionSections {

    private OptionSections() {
    }

    /** Shows {@code essential} (longest names, in this order) first and every other option under {@code tuningHeading}. */
    static void install(CommandLine command, List<String> essential, String tuningHeading) {
        Set<String> essentials = Set.copyOf(essential);
        command.getHelpSectionMap().put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_OPTION_LIST, help -> {
            List<OptionSpec> first = new ArrayList<>();
            for (String name : essential) {
                OptionSpec option = help.commandSpec().findOption(name);
                if (option != null && !option.hidden()) {
                    first.add(option);
                }
            }
            List<OptionSpec> tuning = help.commandSpec().options().stream()
                    .filter(o -> !o.hidden() && !essentials.contains(o.longestName()))
                    .sorted((a, b) -> a.longestName().compareTo(b.longestName()))
                    .toList();
            return layout(help, first) + help.colorScheme().text(String.format(tuningHeading)).toString()
                    + layout(help, tuning);
        });
    }

    private static String layout(Help help, List<OptionSpec> options) {
        Help.Layout layout = help.createDefaultLayout();
        for (OptionSpec option : options) {
            layout.addOption(option, help.parameterLabelRenderer());
        }
        return layout.toString();
    }
}
