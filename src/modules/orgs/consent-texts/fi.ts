/** The default consent disclosure in Finnish, one entry per paragraph (see ../consent-text.ts). */
export const fi: readonly string[] = [
  'Suostumus sähköisten asiakirjojen ja allekirjoitusten käyttöön',
  'Tämän asiakirjan lähettäjä haluaa toimittaa asiakirjan sinulle ja saada allekirjoituksesi sähköisesti. Lue seuraavat tiedot ennen kuin jatkat.',
  'Paperikopio. Sinulla on oikeus saada tämä asiakirja sen sijaan paperisena. Jos haluat paperikopion, ota yhteyttä lähettäjään niiden yhteystietojen kautta, jotka sinulla jo on; lähettäjä voi periä paperikopiosta kohtuullisen maksun, jos se ilmoittaa siitä sinulle. Allekirjoituksen jälkeen saat valmiin asiakirjan sähköpostitse ja voit tulostaa sen.',
  'Suostumuksen peruuttaminen. Voit peruuttaa suostumuksesi sähköiseen asiointiin milloin tahansa ennen allekirjoittamista valitsemalla tällä sivulla ”En hyväksy” tai ilmoittamalla asiasta lähettäjälle. Peruuttaminen päättää tämän sähköisen allekirjoituspyynnön: asiakirja hylätään, ja lähettäjän on toimitettava se sinulle paperisena tai muulla tavalla. Peruuttaminen ei vaikuta sen oikeusvaikutuksiin, minkä olet aiemmin allekirjoittanut sähköisesti.',
  'Soveltamisala. Suostumuksesi koskee tätä asiakirjaa ja siihen liittyviä ilmoituksia, jotka lähetämme sinulle sähköpostitse.',
  'Laitteisto ja ohjelmistot. Tarvitset laitteen, jossa on internetyhteys, ajantasaisen verkkoselaimen (esimerkiksi Chromen, Edgen, Firefoxin tai Safarin uudehkon version), jossa JavaScript on käytössä, sähköpostitilin sekä mahdollisuuden avata ja tallentaa tai tulostaa PDF-tiedostoja.',
  'Yhteystietojen päivittäminen. Jos sähköpostiosoitteesi tai muut yhteystietosi muuttuvat, ilmoita siitä lähettäjälle, jotta lähettäjä tavoittaa sinut tätä asiakirjaa koskevissa asioissa.',
  'Valitsemalla ”Hyväksyn” vahvistat, että pystyt avaamaan ja lukemaan nämä tiedot ja PDF-muotoiset asiakirjat ja että suostut sähköisten asiakirjojen ja allekirjoitusten käyttöön tämän asiakirjan osalta.',
];
