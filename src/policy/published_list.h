// Readers for sanctions lists in the layouts their publishers ship (docs/policy.md,
// "Published lists"): the OpenSanctions "simple" CSV (targets.simple.csv), OFAC's SDN files
// (sdn.csv + alt.csv) and the UN Security Council consolidated XML. Each yields targets with
// a primary name and aliases. Every malformed row or element is an error naming the file,
// the line and the field; callers refuse the whole list when there is any, so a bad file never
// replaces a good list. Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "policy/diagnostic.h"

namespace verdict {

// The layout of a `names from ...` list file; kIdNameCsv is verdict's own id,name CSV.
enum class ListFormat { kIdNameCsv, kOpenSanctions, kOfacSdn, kUnConsolidated };

// The word in the policy language (`names from opensanctions "f"`), "" for kIdNameCsv.
std::string_view ListFormatName(ListFormat format);
std::optional<ListFormat> ListFormatFromName(std::string_view name);
// How many files the format takes: 2 for OFAC (sdn.csv, alt.csv), else 1.
int ListFormatFileCount(ListFormat format);

struct TargetAlias {
  std::string name;
  // How the publisher qualifies it: OFAC "aka"/"fka"/"nka", UN "good"/"low", OpenSanctions
  // "alias". Reported with a hit so an analyst sees that a weak alias matched.
  std::string kind;
};

struct ListTarget {
  std::string id;    // OpenSanctions id, OFAC ent_num, UN reference number (else DATAID)
  std::string name;  // primary name as published
  std::vector<TargetAlias> aliases;
  std::vector<std::string> countries;  // as published (codes or names)
  std::string program;                 // dataset, program or UN list type
  int line = 0;                        // where the target starts in its (first) file
};

struct ListFileText {
  std::string_view name;  // as written in the policy, for errors
  std::string_view text;
};

// targets.simple.csv: header id,schema,name,aliases,birth_date,countries,addresses,
// identifiers,sanctions,phones,emails,dataset,first_seen,last_seen,last_change (order free,
// the columns id, name, aliases, countries and dataset required); multi-values split on ';'.
std::vector<ListTarget> ParseOpenSanctionsCsv(ListFileText file, std::vector<Diagnostic>& errors);

// sdn.csv (no header: ent_num,SDN_Name,SDN_Type,Program,Title,Call_Sign,Vess_type,Tonnage,GRT,
// Vess_flag,Vess_owner,Remarks; "-0-" for empty) and alt.csv (ent_num,alt_num,alt_type,
// alt_name,alt_remarks), each alias joined to its entry by ent_num.
std::vector<ListTarget> ParseOfacSdn(ListFileText sdn, ListFileText alt,
                                     std::vector<Diagnostic>& errors);

// CONSOLIDATED_LIST/INDIVIDUALS/INDIVIDUAL (DATAID, FIRST_NAME..FOURTH_NAME, UN_LIST_TYPE,
// REFERENCE_NUMBER, NATIONALITY/VALUE, INDIVIDUAL_ALIAS with QUALITY and ALIAS_NAME) and
// CONSOLIDATED_LIST/ENTITIES/ENTITY (FIRST_NAME, ENTITY_ALIAS).
std::vector<ListTarget> ParseUnConsolidatedXml(ListFileText file, std::vector<Diagnostic>& errors);

}  // namespace verdict
